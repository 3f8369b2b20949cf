/* redlock_metrics.c -- this process' metrics table and what the glue counts into it: which table a process binds
 * (README "RedLock::metrics()"), the counters and histograms of lock(), release and the watchdog, and the figures
 * of each pooled connection. The table itself is redlock_metrics_table.c's; reading it, redlock_metrics_text.c's. */
#include "redlock_metrics_table.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#ifndef PHP_WIN32
#include <pthread.h>
#include <unistd.h>
#endif

/* Which table a process uses, and why (README "RedLock::metrics()"): the figures
 * must stay with the user that made them. A table mapped at MINIT would be inherited
 * by every php-fpm pool, whatever user it runs as, and nothing can take it back from a
 * process that holds it. So MINIT maps nothing; each process binds at its first
 * request (RINIT, before any of its code runs), by its effective uid then:
 * - the process that ran MINIT (the CLI, a single-process server): an anonymous shared
 *   mapping; the children it forks later inherit it (same user: they keep it);
 * - a process forked from it before that (php-fpm's workers, pre-forked servers): the
 *   file table of its euid and master (rlm_map_user), which its siblings of the same
 *   user map too and no other user can open;
 * - a process whose euid is not the one its table was bound for (a child that
 *   inherited a table and then changed user): that table is dropped (unmapped) and the
 *   process binds anew for its own euid;
 * - redlock.metrics=0, or no table to be had: rlm_private, this process' figures. */
static rlm_table rlm_private;
static rlm_table *rlm_t = &rlm_private; /* the table every update goes to */
static bool rlm_is_shared;
static bool rlm_on;                                     /* redlock.metrics, read at MINIT */
static char rlm_why[RLM_WHY_LEN] = "redlock.metrics=0"; /* private: why; shared: what */
static _Atomic uint64_t rlm_wd_seen;                    /* the watchdog's extensions this process has reported */
#ifndef PHP_WIN32
static pid_t rlm_master;               /* the process that ran MINIT */
static uint64_t rlm_nonce;             /* and a random number of that MINIT */
static _Atomic uint64_t rlm_bound_gen; /* the fork generation the binding was made or checked in (0: none) */
static uid_t rlm_bound_euid;
static pthread_mutex_t rlm_bind_lock = PTHREAD_MUTEX_INITIALIZER;
#define RLM_SHM_DIR "/dev/shm"
#endif

void php_redlock_metrics_startup(void)
{
    rlm_bounds_init();
    /* PHP_INI_SYSTEM: read once, here, before php-fpm forks */
    const char *v = zend_ini_string("redlock.metrics", sizeof("redlock.metrics") - 1, 0);
    zend_string *zv = zend_string_init(v ? v : "1", v ? strlen(v) : 1, 1);
    rlm_on = zend_ini_parse_bool(zv);
    zend_string_release_ex(zv, 1);
#ifndef PHP_WIN32
    rlm_master = getpid();
    if (rl_random_system.fill(rl_random_system.ctx, &rlm_nonce, sizeof(rlm_nonce)) != 0)
        rlm_nonce = rl_clock_monotonic.now_us(NULL) ^ ((uint64_t)rlm_master << 40);
#else
    if (rlm_on) snprintf(rlm_why, sizeof(rlm_why), "no shared memory on Windows");
#endif
}

#ifndef PHP_WIN32
/* rlm_bind_lock held: the table of this process for euid (see above); true when it is a new one */
static bool rlm_bind(uint64_t gen, uid_t euid)
{
    bool inherited_same_user = atomic_load(&rlm_bound_gen) != 0 && rlm_bound_euid == euid;
    bool rebound = rlm_on && !inherited_same_user;
    if (rebound) {
        rlm_table *old = rlm_is_shared ? rlm_t : NULL;
        rlm_table *t;
        char why[sizeof(rlm_why)];
        if (getpid() == rlm_master) {
            t = rlm_map_shared();
            snprintf(why, sizeof(why), t ? "this process and its children" : "no shared memory (mmap failed)");
        } else {
            t = rlm_map_user(RLM_SHM_DIR, euid, rlm_master, rlm_nonce, why, sizeof(why));
            if (t) {
                snprintf(why, sizeof(why), "the processes of uid %u forked by pid %d (%s/redlock-metrics.%u/)",
                         (unsigned)euid, (int)rlm_master, RLM_SHM_DIR, (unsigned)euid);
            }
        }
        if (!t) memset(&rlm_private, 0, sizeof(rlm_private)); /* nothing of another user's */
        rlm_t = t ? t : &rlm_private;
        rlm_is_shared = t != NULL;
        snprintf(rlm_why, sizeof(rlm_why), "%s", why);
#ifndef ZTS
        /* another user's figures: out of this process (in a ZTS process another thread may be in an update) */
        if (old) rlm_unmap(old);
#else
        (void)old;
#endif
    }
    rlm_bound_euid = euid;
    atomic_store(&rlm_bound_gen, gen);
    return rebound;
}
#endif

bool php_redlock_metrics_rinit(void)
{
    bool rebound = false;
#ifndef PHP_WIN32
    uint64_t gen = rl_fork_generation();
    uid_t euid = geteuid();
    /* every request but a process' first: a load and a compare */
    if (atomic_load_explicit(&rlm_bound_gen, memory_order_acquire) == gen && rlm_bound_euid == euid) return false;
    pthread_mutex_lock(&rlm_bind_lock);
    if (atomic_load(&rlm_bound_gen) != gen || rlm_bound_euid != euid) rebound = rlm_bind(gen, euid);
    pthread_mutex_unlock(&rlm_bind_lock);
#endif
    return rebound;
}

void php_redlock_metrics_shutdown(void)
{
    if (!rlm_is_shared) return;
    rlm_table *t = rlm_t;
    rlm_t = &rlm_private;
    rlm_is_shared = false;
    rlm_unmap(t);
}

const rlm_table *php_redlock_metrics_table(bool *shared, const char **why)
{
    *shared = rlm_is_shared;
    if (why) *why = rlm_why;
    return rlm_t;
}

void php_redlock_metrics_add(enum php_redlock_metric m, uint64_t n) { rlm_add(&rlm_t->counter[m], n); }

int php_redlock_metrics_resource(const char *resource, size_t len) { return rlm_res_claim(rlm_t, resource, len); }

int php_redlock_metrics_key_resource(const zend_string *key, size_t pl)
{
    const char *k = ZSTR_VAL(key);
    size_t kl = ZSTR_LEN(key), pos = 1;
    if (rl_key_is_list(k, kl) && !rl_list_next(ZSTR_VAL(key), ZSTR_LEN(key), &pos, &k, &kl)) kl = pl;
    /* a permit's slot key, resource "\0p" i: its resource (no resource holds a NUL) */
    const char *z = kl > pl ? memchr(k + pl, '\0', kl - pl) : NULL;
    if (z) kl = (size_t)(z - k);
    return php_redlock_metrics_resource(k + pl, kl >= pl ? kl - pl : 0);
}

void php_redlock_metrics_acquired(uint64_t wait_us, int mode, int res)
{
    rlm_table *t = rlm_t;
    rlm_add(&t->counter[mode == 1 ? REDLOCK_M_ACQ_PERMIT : mode == 2 ? REDLOCK_M_ACQ_SHARED : REDLOCK_M_ACQ_EXCLUSIVE], 1);
    rlm_add(&t->res[res].c[RLM_RES_ACQ], 1);
    rlm_observe(&t->wait, &rlm_wait, wait_us);
}

void php_redlock_metrics_conflict(int res)
{
    rlm_table *t = rlm_t;
    rlm_add(&t->counter[REDLOCK_M_CONFLICTS], 1);
    rlm_add(&t->res[res].c[RLM_RES_CONFLICT], 1);
}

void php_redlock_metrics_released(uint64_t acquired_us, int res)
{
    rlm_table *t = rlm_t;
    rlm_add(&t->counter[REDLOCK_M_RELEASES], 1);
    rlm_add(&t->res[res].c[RLM_RES_RELEASE], 1);
    if (!acquired_us) return;
    uint64_t now = rl_clock_monotonic.now_us(NULL);
    uint64_t held = now > acquired_us ? now - acquired_us : 0;
    rlm_observe(&t->hold, &rlm_hold, held);
    rlm_add(&t->res[res].hold_us, held);
}

void php_redlock_metrics_lost(int res)
{
    rlm_table *t = rlm_t;
    rlm_add(&t->counter[REDLOCK_M_LOST], 1);
    rlm_add(&t->res[res].c[RLM_RES_LOST], 1);
}

void php_redlock_metrics_track(php_redlock_pooled *p)
{
    /* the table is this one from MINIT to MSHUTDOWN: the connections of a request live in between */
    p->mseen = (php_redlock_mseen){.node = &rlm_t->node[rlm_node_claim(rlm_t, p->name)], .st = rl_conn_stats(p->conn)};
    p->mseen.ok = p->mseen.st->ok;
    p->mseen.errors = p->mseen.st->errors;
    p->mseen.timeouts = p->mseen.st->timeouts;
}

void php_redlock_metrics_retrack(php_redlock_pooled *p)
{
    p->mseen.node = &rlm_t->node[rlm_node_claim(rlm_t, p->name)];
}

/* What the connection counted since it last reported (ok, errors, timeouts
 * as stats() has them: also the late replies it read on the way). */
static inline void node_sync(rlm_node *s, php_redlock_pooled *p)
{
    php_redlock_mseen *m = &p->mseen;
    const rl_node_stats *st = m->st;
    /* a counter only grows; one that did not (stats begun anew) counts from 0 */
#define RLM_SYNC(field, result)                                                            \
    if (st->field != m->field) {                                                           \
        rlm_add(&s->req[result], st->field > m->field ? st->field - m->field : st->field); \
        m->field = st->field;                                                              \
    }
    RLM_SYNC(ok, RLM_REQ_OK)
    RLM_SYNC(errors, RLM_REQ_ERROR)
    RLM_SYNC(timeouts, RLM_REQ_TIMEOUT)
#undef RLM_SYNC
}

int php_redlock_metrics_fanout(void *group, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide, void *ud)
{
    php_redlock_group *g = group;
    int r = rl_net_fanout(&g->net, cmd, res, n, decide, ud);
    for (int i = 0; i < n; i++) {
        php_redlock_pooled *p = g->pooled[i];
        rlm_node *s = p->mseen.node;
        node_sync(s, p);
        /* the round trip the fan-out measured; a reply it did not wait for has none */
        if (res[i].state == RL_ANSWERED) rlm_observe(&s->lat, &rlm_lat, res[i].latency_us);
    }
    return r;
}

void php_redlock_metrics_report(php_redlock_pooled *p) { node_sync(p->mseen.node, p); }

/* (one counter per process, any thread may report) */
void php_redlock_metrics_report_watchdog(void)
{
    uint64_t now = rl_watchdog_extended();
    uint64_t seen = atomic_load(&rlm_wd_seen);
    while (now > seen) {
        if (atomic_compare_exchange_weak(&rlm_wd_seen, &seen, now)) {
            rlm_add(&rlm_t->counter[REDLOCK_M_AUTO_EXTENSIONS], now - seen);
            break;
        }
    }
}

