/* rl_watchdog.c -- the auto_extend watchdog: one background thread per process that keeps extending
 * watched locks, on its own connections, until they are released, lost or held for max_hold. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl_conn.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The connections of one node list, shared by the watches on it. Used only
 * by the thread (and freed by whoever drops the last reference, under the
 * mutex, when the thread is not using it). Kept once its last watch ended,
 * for the next watch of that node list (sequential auto_extend locks must
 * not open connections each), until idle for WD_IDLE_US or pushed out by
 * newer idle sets (WD_IDLE_MAX). The thread never looks a name up (a slow
 * resolver would hold every extension, and release() and fork() behind
 * it): the caller hands each node's address over at rl_watch_start (its own
 * connection's, else resolved in its thread), and the thread copies it into
 * a connection that has none (under the mutex, before an extension). */
#define WD_IDLE_US 60000000u
#define WD_IDLE_MAX 8

typedef struct nodeset {
    struct nodeset *next;
    int refs;               /* active watches on it, +1 while the thread extends through it */
    uint64_t idle_since_us; /* refs 0: when its last watch ended */
    int persistent;         /* a watch on it allowed its connections to outlive rl_watchdog_drop_idle() */
    int n;
    rl_conn *conns[RL_MAX_NODES];
    /* handed over by callers: each node's address (addrlen 0: none yet) and
     * the run_id the caller's connection knew (its lock's SET went to that
     * server: a watchdog connection that meets another one at its first
     * connect sees the restart, and repairs our key there, as the caller's
     * connection would have) */
    rl_conn_handoff ho[RL_MAX_NODES];
    rl_net net;
    rl_transport tp;
    rl_ctx ctx;
} nodeset;

struct rl_watch {
    /* everything below is guarded by wd.mu */
    int refs;                     /* the caller's handles, +1 while active (the watchdog's own) */
    int state;                    /* enum rl_watch_state */
    int busy;                     /* the thread is extending it, without the mutex */
    int paused;                   /* the caller is extending it (rl_watch_pause) */
    int heap_idx;                 /* -1 when not on the heap */
    struct rl_watch *prev, *next; /* the list of active watches (fork, shutdown) */
    nodeset *ns;
    int ttl_ms;
    double drift_factor;
    uint64_t due_us;      /* next extension: a third of the ttl after the last successful one began */
    uint64_t hold_end_us; /* max_hold: no extension from then on; 0: no limit */
    rl_lock_info info;    /* validity as of the last successful extension */
    uint64_t extensions;
    char reason[RL_WATCH_REASON_LEN];
    int deadline_only; /* no extension (spec, or max_hold reached with on_lost): lost at valid_until_us */
    int hold_ended;    /* max_hold turned it into deadline_only */
    /* fixed at start: read by the thread without the mutex while it holds a reference */
    char *key;
    size_t keylen;
    /* restart_grace != 0: key[0, prefix_len) . RL_MAXTTL_SUFFIX, raised and
     * repaired at each extension like extend() (docs/api.md "Restarted nodes"); NULL: off */
    char *maxttl_key;
    size_t maxttl_keylen;
    char token[RL_TOKEN_MAX + 1];
    void (*on_lost)(void *arg);
    void *on_lost_arg;
};

/* The process' watchdog. One instance guarded by one mutex (ZTS: PHP threads
 * and the watchdog thread share it); the only state outside it is the
 * atomic counter of extensions. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake; /* the thread: new work, a stop, shutdown */
    pthread_cond_t idle; /* callers: an extension in flight finished */
    int running;         /* the thread exists */
    int ready;           /* it has reached its loop (past the thread start-up of libc and sanitizers) */
    int stopping;
    int extending; /* the thread is in rl_extend (without the mutex) */
    int forking;   /* fork() is under way: no new extension */
    pthread_t thread;
    rl_watch **heap; /* min-heap on wake time */
    int heap_n, heap_cap;
    rl_watch *active; /* every active watch, on the heap or not (busy, paused) */
    int n_active;
    nodeset *sets;
    rl_poke *pokes;   /* the armed timers (rl_watchdog_poke): one per PHP thread at most, unordered */
    uint64_t idle_us; /* WD_IDLE_US (tests: rl_watchdog_set_idle_ms) */
} wd = {.mu = PTHREAD_MUTEX_INITIALIZER, .idle_us = WD_IDLE_US};

static pthread_once_t wd_once = PTHREAD_ONCE_INIT;
static _Atomic uint64_t wd_extended;

static uint64_t now_us(void) { return rl_clock_monotonic.now_us(rl_clock_monotonic.ctx); }

/* ---- fork: a child has no watchdog thread ---- */

static void wd_free_set(nodeset *s);
static void deactivate(rl_watch *w, int state);
static void poke_unlink(rl_poke *p);

/* fork() waits for an extension in flight and starts no other until it
 * returns: the child then inherits no half-done round trip, and no lock the
 * thread took inside it (an allocator's, a resolver's, that a sanitizer's
 * allocator does not reset in the child); the thread holds wd.mu only for
 * bookkeeping, so with wd.mu held here it is blocked or waiting. */
static void on_fork_prepare(void)
{
    pthread_mutex_lock(&wd.mu);
    wd.forking = 1;
    while (wd.extending) pthread_cond_wait(&wd.idle, &wd.mu);
}
static void on_fork_parent(void)
{
    wd.forking = 0;
    pthread_cond_signal(&wd.wake);
    pthread_mutex_unlock(&wd.mu);
}

static void init_conds(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    /* the thread's timed waits count on CLOCK_MONOTONIC: a wall clock step
     * must not delay an extension */
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wd.wake, &ca);
    pthread_cond_init(&wd.idle, &ca);
    pthread_condattr_destroy(&ca);
}

/* Only the forking thread lives on in the child, holding wd.mu (taken in
 * prepare, so no watch was half-updated). The child does not take over the
 * parent's locks: its copies of the watches stop (the parent keeps extending
 * them), its copies of the connections are closed (close(2) only: the
 * parent's sockets are untouched), and the next rl_watch_start() here starts
 * a thread of its own. Nothing is joined: the thread does not exist here. */
static void on_fork_child(void)
{
    while (wd.active) {
        rl_watch *w = wd.active;
        w->busy = 0;
        w->paused = 0;
        deactivate(w, RL_WATCH_FORKED);
    }
    /* a set the thread was extending through (its extra reference) */
    while (wd.sets) wd_free_set(wd.sets);
    while (wd.pokes) poke_unlink(wd.pokes); /* the parent's threads' (and this one's: its thread is gone) */
    wd.heap_n = 0;
    wd.running = 0;
    wd.ready = 0;
    wd.stopping = 0;
    wd.extending = 0;
    wd.forking = 0;
    init_conds(); /* their waiters were other threads: gone */
    pthread_mutex_unlock(&wd.mu);
}

static void wd_init(void)
{
    init_conds();
    pthread_atfork(on_fork_prepare, on_fork_parent, on_fork_child);
}

/* ---- the heap of active watches, ordered by wake time ---- */

static uint64_t wake_at(const rl_watch *w)
{
    if (w->deadline_only) return w->info.valid_until_us;
    return w->hold_end_us && w->hold_end_us < w->due_us ? w->hold_end_us : w->due_us;
}

static void heap_set(int i, rl_watch *w)
{
    wd.heap[i] = w;
    w->heap_idx = i;
}

static void heap_up(int i)
{
    rl_watch *w = wd.heap[i];
    while (i > 0) {
        int p = (i - 1) / 2;
        if (wake_at(wd.heap[p]) <= wake_at(w)) break;
        heap_set(i, wd.heap[p]);
        i = p;
    }
    heap_set(i, w);
}

static void heap_down(int i)
{
    rl_watch *w = wd.heap[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= wd.heap_n) break;
        if (c + 1 < wd.heap_n && wake_at(wd.heap[c + 1]) < wake_at(wd.heap[c])) c++;
        if (wake_at(w) <= wake_at(wd.heap[c])) break;
        heap_set(i, wd.heap[c]);
        i = c;
    }
    heap_set(i, w);
}

/* room was reserved at rl_watch_start (heap_cap >= active watches) */
static void heap_push(rl_watch *w)
{
    heap_set(wd.heap_n++, w);
    heap_up(wd.heap_n - 1);
}

static void heap_remove(rl_watch *w)
{
    int i = w->heap_idx;
    if (i < 0) return;
    w->heap_idx = -1;
    rl_watch *last = wd.heap[--wd.heap_n];
    if (i == wd.heap_n) return;
    heap_set(i, last);
    heap_up(i);
    heap_down(last->heap_idx);
}

/* ---- node sets ---- */

static void wd_free_set(nodeset *s)
{
    for (nodeset **pp = &wd.sets; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    for (int i = 0; i < s->n; i++) rl_conn_free(s->conns[i]);
    free(s);
}

/* Idle sets past their time are freed (under wd.mu); returns when the next
 * one is due, 0 when none is idle. At most WD_IDLE_MAX stay: the oldest go. */
static uint64_t expire_idle(uint64_t now)
{
    for (;;) {
        nodeset *oldest = NULL;
        int idle = 0;
        for (nodeset *s = wd.sets; s; s = s->next) {
            if (s->refs > 0) continue;
            idle++;
            if (!oldest || s->idle_since_us < oldest->idle_since_us) oldest = s;
        }
        if (!oldest) return 0;
        if (idle <= WD_IDLE_MAX && now < oldest->idle_since_us + wd.idle_us) return oldest->idle_since_us + wd.idle_us;
        wd_free_set(oldest);
    }
}

static void set_unref(nodeset *s)
{
    if (!s || --s->refs > 0) return;
    s->idle_since_us = now_us(); /* kept for the next watch of these nodes */
    expire_idle(s->idle_since_us);
    pthread_cond_signal(&wd.wake); /* the thread's next wake-up may now be its expiry */
}

/* The addresses of spec's nodes, for the watchdog's connections (which never
 * look a name up): the caller's own connection's, else resolved here, in
 * the caller's thread (a name its connection could not resolve yet: its
 * lookup costs the caller as its next call would have). addrlen 0: none.
 * With them, the run_id each caller's connection knew. */
static void caller_addrs(const rl_watch_spec *spec, rl_conn_handoff *ho)
{
    for (int i = 0; i < spec->n; i++) {
        const rl_conn *own = spec->conns ? spec->conns[i] : NULL;
        char why[RL_REASON_LEN];
        memset(&ho[i], 0, sizeof(ho[i]));
        if (own) rlc_handoff_get(own, &ho[i]);
        if (!ho[i].addrlen && rlc_resolve_addr(&spec->confs[i], 1, &ho[i].addr, &ho[i].addrlen, why, sizeof(why)) != 0)
            ho[i].addrlen = 0; /* that node fails its extensions until a later watch brings one */
    }
}

/* the addresses and run_ids callers handed over, into the connections that
 * have none (by the thread, under wd.mu: the connections are the thread's) */
static void take_addrs(nodeset *s)
{
    for (int i = 0; i < s->n; i++) rlc_handoff_take(s->conns[i], &s->ho[i]);
}

static nodeset *set_get(const rl_watch_spec *spec, const rl_conn_handoff *ho)
{
    const rl_node_conf *confs = spec->confs;
    int n = spec->n;
    nodeset *s;
    for (s = wd.sets; s; s = s->next) {
        if (s->n != n) continue;
        int same = 1;
        for (int i = 0; i < n && same; i++) same = rl_node_conf_eq(rl_conn_conf(s->conns[i]), &confs[i]);
        if (same) break;
    }
    if (!s) {
        s = calloc(1, sizeof(*s));
        if (!s) return NULL;
        for (int i = 0; i < n; i++) {
            s->conns[i] = rl_conn_new(&confs[i]); /* a copy of the conf: never the caller's connection */
            if (!s->conns[i]) {
                for (int k = 0; k < i; k++) rl_conn_free(s->conns[k]);
                free(s);
                return NULL;
            }
            rlc_mark_watchdog(
                s->conns[i]); /* no lookup; set_get compares its conf under wd.mu while the thread connects */
            /* the caller's TLS context: its key is loaded, its passphrase wiped */
            if (spec->conns) rl_conn_tls_share(s->conns[i], spec->conns[i]);
            s->n = i + 1;
        }
        s->net = (rl_net){.conns = s->conns, .n = n, .clock = &rl_clock_monotonic};
        s->tp = (rl_transport){.fanout = rl_net_fanout, .ctx = &s->net};
        s->ctx = (rl_ctx){.tp = &s->tp, .clock = &rl_clock_monotonic, .rnd = &rl_random_system, .n = n};
        s->next = wd.sets;
        wd.sets = s;
    }
    for (int i = 0; i < n; i++) {
        rlc_handoff_merge(&s->ho[i], &ho[i]);
    }
    s->refs++;
    s->persistent |= spec->persistent;
    return s;
}

/* ---- watches ---- */

static void watch_free(rl_watch *w)
{
    free(w->key);
    free(w->maxttl_key);
    memset(w->token, 0, sizeof(w->token));
    free(w);
}

static void unref_locked(rl_watch *w)
{
    if (--w->refs == 0) watch_free(w);
}

/* End a watch (under wd.mu, never while busy): off the heap and the active
 * list, its node set and the watchdog's reference dropped. */
static void deactivate(rl_watch *w, int state)
{
    if (w->state != RL_WATCH_ACTIVE) return;
    w->state = state;
    if (state == RL_WATCH_LOST) {
        w->info.valid_until_us = 0;
        w->info.validity_ms = 0;
    }
    heap_remove(w);
    if (w->prev)
        w->prev->next = w->next;
    else
        wd.active = w->next;
    if (w->next) w->next->prev = w->prev;
    w->prev = w->next = NULL;
    wd.n_active--;
    nodeset *s = w->ns;
    w->ns = NULL;
    if (state == RL_WATCH_FORKED) {
        /* the child's copy of the set: freed below by on_fork_child */
    } else {
        set_unref(s);
    }
    unref_locked(w);
}

static const char *outcome_text(int r)
{
    switch (r) {
    case RL_LOST: return "our token is gone on too many nodes (expired or taken)";
    case RL_NO_QUORUM: return "could not reach a quorum";
    case RL_SAME_SERVER: return "two nodes are the same Redis server";
    case RL_ERROR: return "internal error (out of memory)";
    default: return "the new validity came out <= 0";
    }
}

/* "extension failed: <why>: host:port <reason>; ..." (names, never passwords) */
static void lost_reason(rl_watch *w, nodeset *s, int r, const rl_call *call)
{
    size_t len =
        (size_t)snprintf(w->reason, sizeof(w->reason), "extension failed: %s (%d of %d nodes needed, %d confirmed)",
                         outcome_text(r), rl_quorum(s->n), s->n, r == RL_ERROR ? 0 : call->ok);
    const char *sep = ": ";
    for (int i = 0; r != RL_ERROR && i < s->n && len < sizeof(w->reason); i++) {
        const rl_result *res = &call->res[i];
        char name[128];
        const char *why;
        if (res->state == RL_FAILED)
            why = res->reason[0] ? res->reason : rl_err_name(res->err);
        else if (res->state == RL_ANSWERED && !(res->reply.type == RL_REPLY_INTEGER && res->reply.integer == 1))
            why = "token gone";
        else
            continue;
        rl_node_conf_name(rl_conn_conf(s->conns[i]), name, sizeof(name));
        len += (size_t)snprintf(w->reason + len, sizeof(w->reason) - len, "%s%s %s", sep, name, why);
        sep = "; ";
    }
}

/* The watch found its lock lost (under wd.mu): ended, and its owner told. */
static void lost_now(rl_watch *w)
{
    void (*cb)(void *) = w->on_lost;
    void *arg = w->on_lost_arg;
    deactivate(w, RL_WATCH_LOST); /* may free w */
    if (cb) cb(arg);
}

/* One due watch (under wd.mu; the mutex is let go for the round trip). */
static void extend_one(rl_watch *w, uint64_t now)
{
    if (!w->deadline_only && w->hold_end_us && now >= w->hold_end_us) {
        if (!w->on_lost) {
            deactivate(w, RL_WATCH_MAX_HOLD); /* the lock now expires by its TTL */
            return;
        }
        /* its owner wants to hear when the lock ends: wait for the validity's end */
        w->deadline_only = w->hold_ended = 1;
        heap_remove(w);
        heap_push(w);
        return;
    }
    if (w->deadline_only) {
        if (now < w->info.valid_until_us) return; /* not due (a spurious pick) */
        if (w->hold_ended)
            snprintf(w->reason, sizeof(w->reason),
                     "max_hold ended the extensions and the validity ran out while the lock was held");
        else
            snprintf(w->reason, sizeof(w->reason), "the validity ran out while the lock was held (not released)");
        lost_now(w);
        return;
    }
    if (now >= w->info.valid_until_us) {
        /* too late to extend what may already be someone else's: a paused
         * process, or a thread that fell behind */
        snprintf(w->reason, sizeof(w->reason), "validity ran out before the extension was sent (process paused?)");
        lost_now(w);
        return;
    }
    heap_remove(w);
    w->busy = 1;
    wd.extending = 1;
    nodeset *s = w->ns;
    s->refs++;
    take_addrs(s);
    int ttl = w->ttl_ms;
    double drift = w->drift_factor;
    rl_lock_info info = w->info;
    pthread_mutex_unlock(&wd.mu);

    rl_call call;
    rl_ctx ctx = s->ctx;
    rl_restart rs; /* only its key: an extension judges no vote */
    if (w->maxttl_key) {
        memset(&rs, 0, sizeof(rs));
        rs.grace_ms = RL_GRACE_AUTO;
        rs.maxttl_key = w->maxttl_key;
        rs.maxttl_keylen = w->maxttl_keylen;
        ctx.rs = &rs;
    }
    int r = rl_extend(&ctx, w->key, w->keylen, w->token, ttl, drift, &info, &call);

    pthread_mutex_lock(&wd.mu);
    w->busy = 0;
    wd.extending = 0;
    if (w->state == RL_WATCH_ACTIVE) {
        if (r == RL_EXTENDED) {
            w->info = info;
            w->extensions++;
            wd_extended++;
            w->due_us = info.start_us + (uint64_t)ttl * 1000u / 3u;
            heap_push(w);
        } else {
            /* the first failed extension ends it: the lock is lost */
            lost_reason(w, s, r, &call);
            lost_now(w);
        }
    }
    set_unref(s);
    pthread_cond_broadcast(&wd.idle);
}

static void timed_wait(uint64_t us)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + (us % 1000000u) * 1000u;
    ts.tv_sec += (time_t)(us / 1000000u + ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    pthread_cond_timedwait(&wd.wake, &wd.mu, &ts);
}

/* ---- one-shot timers (rl_watchdog_poke) ---- */

static void poke_unlink(rl_poke *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        wd.pokes = p->next;
    if (p->next) p->next->prev = p->prev;
    p->prev = p->next = NULL;
    p->armed = 0;
}

/* the due ones called (under wd.mu); returns when the next is due, 0: none armed */
static uint64_t fire_pokes(uint64_t now)
{
    uint64_t next = 0;
    for (rl_poke *p = wd.pokes, *nx; p; p = nx) {
        nx = p->next;
        if (p->at_us <= now) {
            poke_unlink(p);
            p->cb(p->arg);
        } else if (!next || p->at_us < next) {
            next = p->at_us;
        }
    }
    return next;
}

static uint64_t earliest(uint64_t a, uint64_t b) { return !a || (b && b < a) ? b : a; }

static void *wd_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&wd.mu);
    wd.ready = 1;
    pthread_cond_broadcast(&wd.idle);
    while (!wd.stopping) {
        uint64_t now = now_us(), idle_at = expire_idle(now), poke_at = fire_pokes(now);
        if (wd.forking || (wd.heap_n == 0 && !idle_at && !poke_at)) {
            pthread_cond_wait(&wd.wake, &wd.mu);
            continue;
        }
        /* (a watch's time may be 0: due at once) */
        uint64_t at = earliest(idle_at, poke_at);
        if (wd.heap_n && (!at || wake_at(wd.heap[0]) < at)) at = wake_at(wd.heap[0]);
        if (at > now) {
            timed_wait(at - now);
            continue;
        }
        if (wd.heap_n) extend_one(wd.heap[0], now);
    }
    pthread_mutex_unlock(&wd.mu);
    return NULL;
}

/* under wd.mu */
static int start_thread(void)
{
    if (wd.running) return 0;
    sigset_t all, old;
    sigfillset(&all);
    /* the thread takes no signal: they stay with the caller's threads (PHP's
     * timeouts, a program's SIGCHLD) */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&wd.thread, NULL, wd_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) return -1;
    wd.running = 1;
    /* a fork() must not copy a thread that is still starting up (it may hold
     * allocator locks then): wait until it runs its loop */
    while (!wd.ready) pthread_cond_wait(&wd.idle, &wd.mu);
    return 0;
}

rl_watch *rl_watch_start(const rl_watch_spec *spec, const rl_lock_info *info)
{
    if (!spec || spec->n < 1 || spec->n > RL_MAX_NODES || spec->ttl_ms < 1 || !spec->token ||
        strlen(spec->token) > RL_TOKEN_MAX)
        return NULL;
    pthread_once(&wd_once, wd_init);
    rl_watch *w = calloc(1, sizeof(*w));
    if (!w) return NULL;
    w->key = malloc(spec->keylen ? spec->keylen : 1);
    if (!w->key) {
        free(w);
        return NULL;
    }
    memcpy(w->key, spec->key, spec->keylen);
    w->keylen = spec->keylen;
    if (spec->restart_grace && spec->prefix_len <= spec->keylen) {
        w->maxttl_keylen = spec->prefix_len + RL_MAXTTL_SUFFIX_LEN;
        w->maxttl_key = malloc(w->maxttl_keylen);
        if (!w->maxttl_key) {
            free(w->key);
            free(w);
            return NULL;
        }
        memcpy(w->maxttl_key, spec->key, spec->prefix_len);
        memcpy(w->maxttl_key + spec->prefix_len, RL_MAXTTL_SUFFIX, RL_MAXTTL_SUFFIX_LEN);
    }
    strcpy(w->token, spec->token);
    w->ttl_ms = spec->ttl_ms;
    w->drift_factor = spec->drift_factor;
    w->info = *info;
    w->due_us = info->start_us + (uint64_t)spec->ttl_ms * 1000u / 3u;
    w->hold_end_us = spec->max_hold_ms > 0 ? info->start_us + (uint64_t)spec->max_hold_ms * 1000u : 0;
    w->heap_idx = -1;
    w->refs = 2; /* the caller's handle and the watchdog's */
    w->deadline_only = spec->deadline_only;
    w->on_lost = spec->on_lost;
    w->on_lost_arg = spec->on_lost_arg;
    rl_conn_handoff ho[RL_MAX_NODES];
    /* without wd.mu: a lookup here holds no extension; a deadline needs no connection */
    if (!w->deadline_only) caller_addrs(spec, ho);

    pthread_mutex_lock(&wd.mu);
    if (wd.heap_cap <= wd.n_active) {
        int cap = wd.heap_cap ? wd.heap_cap * 2 : 16;
        rl_watch **h = realloc(wd.heap, sizeof(*h) * (size_t)cap);
        if (!h) goto fail;
        wd.heap = h;
        wd.heap_cap = cap;
    }
    if (!w->deadline_only && !(w->ns = set_get(spec, ho))) goto fail;
    if (start_thread() != 0) {
        set_unref(w->ns);
        goto fail;
    }
    w->state = RL_WATCH_ACTIVE;
    w->next = wd.active;
    if (wd.active) wd.active->prev = w;
    wd.active = w;
    wd.n_active++;
    heap_push(w);
    pthread_cond_signal(&wd.wake);
    pthread_mutex_unlock(&wd.mu);
    return w;
fail:
    pthread_mutex_unlock(&wd.mu);
    watch_free(w);
    return NULL;
}

static void wait_not_busy(rl_watch *w)
{
    while (w->busy) pthread_cond_wait(&wd.idle, &wd.mu);
}

void rl_watch_stop(rl_watch *w)
{
    if (!w) return;
    pthread_mutex_lock(&wd.mu);
    wait_not_busy(w); /* its EVALSHA is out and answered (or timed out) before we return */
    deactivate(w, RL_WATCH_STOPPED);
    pthread_cond_signal(&wd.wake);
    pthread_mutex_unlock(&wd.mu);
}

void rl_watch_ref(rl_watch *w)
{
    pthread_mutex_lock(&wd.mu);
    w->refs++;
    pthread_mutex_unlock(&wd.mu);
}

void rl_watch_unref(rl_watch *w)
{
    if (!w) return;
    pthread_mutex_lock(&wd.mu);
    unref_locked(w);
    pthread_mutex_unlock(&wd.mu);
}

void rl_watch_status_get(rl_watch *w, rl_watch_status *st)
{
    pthread_mutex_lock(&wd.mu);
    st->state = w->state;
    st->ttl_ms = w->ttl_ms;
    st->valid_until_us = w->info.valid_until_us;
    st->extensions = w->extensions;
    memcpy(st->reason, w->reason, sizeof(st->reason));
    pthread_mutex_unlock(&wd.mu);
}

int64_t rl_watch_remaining_ms(rl_watch *w)
{
    pthread_mutex_lock(&wd.mu);
    int64_t ms = rl_remaining_ms(&w->info, now_us());
    pthread_mutex_unlock(&wd.mu);
    return ms;
}

int rl_watch_pause(rl_watch *w, rl_lock_info *info)
{
    pthread_mutex_lock(&wd.mu);
    wait_not_busy(w);
    if (w->state == RL_WATCH_ACTIVE && !w->paused) {
        heap_remove(w);
        w->paused = 1;
    }
    if (info) *info = w->info;
    int state = w->state;
    pthread_mutex_unlock(&wd.mu);
    return state;
}

void rl_watch_resume(rl_watch *w, int outcome, int ttl_ms, const rl_lock_info *info)
{
    pthread_mutex_lock(&wd.mu);
    int was_paused = w->paused;
    w->paused = 0;
    if (w->state == RL_WATCH_LOST || w->state == RL_WATCH_FORKED) {
        /* a lost lock stays lost; a fork child's copy is not ours */
    } else if (outcome == RL_EXTENDED) {
        w->info = *info;
        w->ttl_ms = ttl_ms;
        w->due_us = info->start_us + (uint64_t)ttl_ms * 1000u / 3u;
    } else if (info->valid_until_us < w->info.valid_until_us) {
        w->info.valid_until_us = info->valid_until_us; /* a failed extend never adds validity */
        w->info.validity_ms = info->validity_ms;
    }
    if (w->state == RL_WATCH_ACTIVE) {
        if (w->info.valid_until_us == 0) {
            snprintf(w->reason, sizeof(w->reason), "extend() found the lock gone: %s", outcome_text(outcome));
            deactivate(w, RL_WATCH_LOST);
        } else if (was_paused && w->heap_idx < 0) {
            heap_push(w);
            pthread_cond_signal(&wd.wake);
        }
    }
    pthread_mutex_unlock(&wd.mu);
}

int rl_watchdog_poke(rl_poke *p, uint64_t delay_us)
{
    pthread_once(&wd_once, wd_init);
    pthread_mutex_lock(&wd.mu);
    int rc = 0;
    if (p->armed) {
        /* its earlier time stands */
    } else if (start_thread() != 0) {
        rc = -1;
    } else {
        p->at_us = now_us() + delay_us;
        p->armed = 1;
        p->prev = NULL;
        p->next = wd.pokes;
        if (wd.pokes) wd.pokes->prev = p;
        wd.pokes = p;
        pthread_cond_signal(&wd.wake);
    }
    pthread_mutex_unlock(&wd.mu);
    return rc;
}

void rl_watchdog_poke_cancel(rl_poke *p)
{
    pthread_once(&wd_once, wd_init);
    pthread_mutex_lock(&wd.mu); /* a callback runs under it: none is running once we have it */
    if (p->armed) poke_unlink(p);
    pthread_mutex_unlock(&wd.mu);
}

uint64_t rl_watchdog_extended(void) { return wd_extended; }

void rl_watchdog_drop_idle(void)
{
    pthread_mutex_lock(&wd.mu);
    for (nodeset *s = wd.sets, *next; s; s = next) {
        next = s->next;
        if (s->refs == 0 && !s->persistent) wd_free_set(s);
    }
    pthread_mutex_unlock(&wd.mu);
}

void rl_watchdog_set_idle_ms(int ms)
{
    pthread_mutex_lock(&wd.mu);
    wd.idle_us = ms > 0 ? (uint64_t)ms * 1000u : WD_IDLE_US;
    pthread_cond_signal(&wd.wake);
    pthread_mutex_unlock(&wd.mu);
}

int rl_watchdog_sets(int *idle)
{
    pthread_mutex_lock(&wd.mu);
    int n = 0, i = 0;
    for (nodeset *s = wd.sets; s; s = s->next) {
        n++;
        i += s->refs == 0;
    }
    if (idle) *idle = i;
    pthread_mutex_unlock(&wd.mu);
    return n;
}

int rl_watchdog_active(int *thread_running)
{
    pthread_mutex_lock(&wd.mu);
    int n = wd.n_active;
    if (thread_running) *thread_running = wd.running;
    pthread_mutex_unlock(&wd.mu);
    return n;
}

void rl_watchdog_shutdown(void)
{
    pthread_mutex_lock(&wd.mu);
    if (wd.running) {
        pthread_t th = wd.thread;
        wd.stopping = 1;
        pthread_cond_signal(&wd.wake);
        pthread_mutex_unlock(&wd.mu);
        pthread_join(th, NULL); /* it finishes the extension in flight, then returns */
        pthread_mutex_lock(&wd.mu);
        wd.running = 0;
        wd.ready = 0;
        wd.stopping = 0;
    }
    while (wd.active) deactivate(wd.active, RL_WATCH_STOPPED);
    while (wd.pokes) poke_unlink(wd.pokes);
    while (wd.sets) wd_free_set(wd.sets); /* the idle ones kept for reuse */
    free(wd.heap);
    wd.heap = NULL;
    wd.heap_n = wd.heap_cap = 0;
    pthread_mutex_unlock(&wd.mu);
}
