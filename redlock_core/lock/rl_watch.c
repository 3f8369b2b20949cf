/* rl_watch.c -- the auto_extend watchdog's watches: the node sets (the connections they are
 * extended through), the heap that orders them by wake time, one extension and its outcome
 * (extended, or lost and the owner told), the end of a watch, and the caller's calls on one
 * (stop, pause, resume, status). The thread that drives them is rl_watchdog.c's: the watchdog
 * was one file until it passed 800 lines (issue 38), and was split where the thread's machinery
 * meets what it decides for a watch. This file defines the state the two share (rl_wd) and calls
 * nothing of rl_watchdog.c, which stands above it. */
#include "rl_watchdog_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct nodeset {
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
};

struct rl_wd_state rl_wd = {.mu = PTHREAD_MUTEX_INITIALIZER, .idle_us = WD_IDLE_US};

static _Atomic uint64_t wd_extended;

/* ---- the heap of active watches, ordered by wake time ---- */

uint64_t rl_wd_wake_at(const rl_watch *w)
{
    if (w->deadline_only) return w->info.valid_until_us;
    return w->hold_end_us && w->hold_end_us < w->due_us ? w->hold_end_us : w->due_us;
}

static void heap_set(int i, rl_watch *w)
{
    rl_wd.heap[i] = w;
    w->heap_idx = i;
}

static void heap_up(int i)
{
    rl_watch *w = rl_wd.heap[i];
    while (i > 0) {
        int p = (i - 1) / 2;
        if (rl_wd_wake_at(rl_wd.heap[p]) <= rl_wd_wake_at(w)) break;
        heap_set(i, rl_wd.heap[p]);
        i = p;
    }
    heap_set(i, w);
}

static void heap_down(int i)
{
    rl_watch *w = rl_wd.heap[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= rl_wd.heap_n) break;
        if (c + 1 < rl_wd.heap_n && rl_wd_wake_at(rl_wd.heap[c + 1]) < rl_wd_wake_at(rl_wd.heap[c])) c++;
        if (rl_wd_wake_at(w) <= rl_wd_wake_at(rl_wd.heap[c])) break;
        heap_set(i, rl_wd.heap[c]);
        i = c;
    }
    heap_set(i, w);
}

/* room was reserved at rl_watch_start (heap_cap >= active watches) */
void rl_wd_heap_push(rl_watch *w)
{
    heap_set(rl_wd.heap_n++, w);
    heap_up(rl_wd.heap_n - 1);
}

static void heap_remove(rl_watch *w)
{
    int i = w->heap_idx;
    if (i < 0) return;
    w->heap_idx = -1;
    rl_watch *last = rl_wd.heap[--rl_wd.heap_n];
    if (i == rl_wd.heap_n) return;
    heap_set(i, last);
    heap_up(i);
    heap_down(last->heap_idx);
}

/* ---- node sets ---- */

void rl_wd_free_set(nodeset *s)
{
    for (nodeset **pp = &rl_wd.sets; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    for (int i = 0; i < s->n; i++) rl_conn_free(s->conns[i]);
    free(s);
}

/* Idle sets past their time are freed (under rl_wd.mu); returns when the next
 * one is due, 0 when none is idle. At most WD_IDLE_MAX stay: the oldest go. */
uint64_t rl_wd_expire_idle(uint64_t now)
{
    for (;;) {
        nodeset *oldest = NULL;
        int idle = 0;
        for (nodeset *s = rl_wd.sets; s; s = s->next) {
            if (s->refs > 0) continue;
            idle++;
            if (!oldest || s->idle_since_us < oldest->idle_since_us) oldest = s;
        }
        if (!oldest) return 0;
        if (idle <= WD_IDLE_MAX && now < oldest->idle_since_us + rl_wd.idle_us)
            return oldest->idle_since_us + rl_wd.idle_us;
        rl_wd_free_set(oldest);
    }
}

void rl_wd_set_unref(nodeset *s)
{
    if (!s || --s->refs > 0) return;
    s->idle_since_us = now_us(); /* kept for the next watch of these nodes */
    rl_wd_expire_idle(s->idle_since_us);
    pthread_cond_signal(&rl_wd.wake); /* the thread's next wake-up may now be its expiry */
}

/* The addresses of spec's nodes, for the watchdog's connections (which never
 * look a name up): the caller's own connection's, else resolved here, in
 * the caller's thread (a name its connection could not resolve yet: its
 * lookup costs the caller as its next call would have). addrlen 0: none.
 * With them, the run_id each caller's connection knew. */
void rl_wd_caller_addrs(const rl_watch_spec *spec, rl_conn_handoff *ho)
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
 * have none (by the thread, under rl_wd.mu: the connections are the thread's) */
static void take_addrs(nodeset *s)
{
    for (int i = 0; i < s->n; i++) rlc_handoff_take(s->conns[i], &s->ho[i]);
}

nodeset *rl_wd_set_get(const rl_watch_spec *spec, const rl_conn_handoff *ho)
{
    const rl_node_conf *confs = spec->confs;
    int n = spec->n;
    nodeset *s;
    for (s = rl_wd.sets; s; s = s->next) {
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
            /* no lookup; rl_wd_set_get compares its conf under rl_wd.mu while the thread connects */
            rlc_mark_watchdog(s->conns[i]);
            /* the caller's TLS context: its key is loaded, its passphrase wiped */
            if (spec->conns) rl_conn_tls_share(s->conns[i], spec->conns[i]);
            s->n = i + 1;
        }
        s->net = (rl_net){.conns = s->conns, .n = n, .clock = &rl_clock_monotonic};
        s->tp = (rl_transport){.fanout = rl_net_fanout, .ctx = &s->net};
        s->ctx = (rl_ctx){.tp = &s->tp, .clock = &rl_clock_monotonic, .rnd = &rl_random_system, .n = n};
        s->next = rl_wd.sets;
        rl_wd.sets = s;
    }
    for (int i = 0; i < n; i++) {
        rlc_handoff_merge(&s->ho[i], &ho[i]);
    }
    s->refs++;
    s->persistent |= spec->persistent;
    return s;
}

/* ---- watches ---- */

void rl_wd_watch_free(rl_watch *w)
{
    free(w->key);
    free(w->maxttl_key);
    memset(w->token, 0, sizeof(w->token));
    free(w);
}

static void unref_locked(rl_watch *w)
{
    if (--w->refs == 0) rl_wd_watch_free(w);
}

/* End a watch (under rl_wd.mu, never while busy): off the heap and the active
 * list, its node set and the watchdog's reference dropped. */
void rl_wd_deactivate(rl_watch *w, int state)
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
        rl_wd.active = w->next;
    if (w->next) w->next->prev = w->prev;
    w->prev = w->next = NULL;
    rl_wd.n_active--;
    nodeset *s = w->ns;
    w->ns = NULL;
    if (state == RL_WATCH_FORKED) {
        /* the child's copy of the set: freed by on_fork_child (rl_watchdog.c) */
    } else {
        rl_wd_set_unref(s);
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

/* The watch found its lock lost (under rl_wd.mu): ended, and its owner told. */
static void lost_now(rl_watch *w)
{
    void (*cb)(void *) = w->on_lost;
    void *arg = w->on_lost_arg;
    rl_wd_deactivate(w, RL_WATCH_LOST); /* may free w */
    if (cb) cb(arg);
}

/* One due watch (under rl_wd.mu; the mutex is let go for the round trip). */
void rl_wd_extend_one(rl_watch *w, uint64_t now)
{
    if (!w->deadline_only && w->hold_end_us && now >= w->hold_end_us) {
        if (!w->on_lost) {
            rl_wd_deactivate(w, RL_WATCH_MAX_HOLD); /* the lock now expires by its TTL */
            return;
        }
        /* its owner wants to hear when the lock ends: wait for the validity's end */
        w->deadline_only = w->hold_ended = 1;
        heap_remove(w);
        rl_wd_heap_push(w);
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
    rl_wd.extending = 1;
    nodeset *s = w->ns;
    s->refs++;
    take_addrs(s);
    int ttl = w->ttl_ms;
    double drift = w->drift_factor;
    rl_lock_info info = w->info;
    pthread_mutex_unlock(&rl_wd.mu);

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

    pthread_mutex_lock(&rl_wd.mu);
    w->busy = 0;
    rl_wd.extending = 0;
    if (w->state == RL_WATCH_ACTIVE) {
        if (r == RL_EXTENDED) {
            w->info = info;
            w->extensions++;
            wd_extended++;
            w->due_us = info.start_us + (uint64_t)ttl * 1000u / 3u;
            rl_wd_heap_push(w);
        } else {
            /* the first failed extension ends it: the lock is lost */
            lost_reason(w, s, r, &call);
            lost_now(w);
        }
    }
    rl_wd_set_unref(s);
    pthread_cond_broadcast(&rl_wd.idle);
}

static void wait_not_busy(rl_watch *w)
{
    while (w->busy) pthread_cond_wait(&rl_wd.idle, &rl_wd.mu);
}

void rl_watch_stop(rl_watch *w)
{
    if (!w) return;
    pthread_mutex_lock(&rl_wd.mu);
    wait_not_busy(w); /* its EVALSHA is out and answered (or timed out) before we return */
    rl_wd_deactivate(w, RL_WATCH_STOPPED);
    pthread_cond_signal(&rl_wd.wake);
    pthread_mutex_unlock(&rl_wd.mu);
}

void rl_watch_ref(rl_watch *w)
{
    pthread_mutex_lock(&rl_wd.mu);
    w->refs++;
    pthread_mutex_unlock(&rl_wd.mu);
}

void rl_watch_unref(rl_watch *w)
{
    if (!w) return;
    pthread_mutex_lock(&rl_wd.mu);
    unref_locked(w);
    pthread_mutex_unlock(&rl_wd.mu);
}

void rl_watch_status_get(rl_watch *w, rl_watch_status *st)
{
    pthread_mutex_lock(&rl_wd.mu);
    st->state = w->state;
    st->ttl_ms = w->ttl_ms;
    st->valid_until_us = w->info.valid_until_us;
    st->extensions = w->extensions;
    memcpy(st->reason, w->reason, sizeof(st->reason));
    pthread_mutex_unlock(&rl_wd.mu);
}

int64_t rl_watch_remaining_ms(rl_watch *w)
{
    pthread_mutex_lock(&rl_wd.mu);
    int64_t ms = rl_remaining_ms(&w->info, now_us());
    pthread_mutex_unlock(&rl_wd.mu);
    return ms;
}

int rl_watch_pause(rl_watch *w, rl_lock_info *info)
{
    pthread_mutex_lock(&rl_wd.mu);
    wait_not_busy(w);
    if (w->state == RL_WATCH_ACTIVE && !w->paused) {
        heap_remove(w);
        w->paused = 1;
    }
    if (info) *info = w->info;
    int state = w->state;
    pthread_mutex_unlock(&rl_wd.mu);
    return state;
}

void rl_watch_resume(rl_watch *w, int outcome, int ttl_ms, const rl_lock_info *info)
{
    pthread_mutex_lock(&rl_wd.mu);
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
            rl_wd_deactivate(w, RL_WATCH_LOST);
        } else if (was_paused && w->heap_idx < 0) {
            rl_wd_heap_push(w);
            pthread_cond_signal(&rl_wd.wake);
        }
    }
    pthread_mutex_unlock(&rl_wd.mu);
}

uint64_t rl_watchdog_extended(void) { return wd_extended; }

void rl_watchdog_drop_idle(void)
{
    pthread_mutex_lock(&rl_wd.mu);
    for (nodeset *s = rl_wd.sets, *next; s; s = next) {
        next = s->next;
        if (s->refs == 0 && !s->persistent) rl_wd_free_set(s);
    }
    pthread_mutex_unlock(&rl_wd.mu);
}

void rl_watchdog_set_idle_ms(int ms)
{
    pthread_mutex_lock(&rl_wd.mu);
    rl_wd.idle_us = ms > 0 ? (uint64_t)ms * 1000u : WD_IDLE_US;
    pthread_cond_signal(&rl_wd.wake);
    pthread_mutex_unlock(&rl_wd.mu);
}

int rl_watchdog_sets(int *idle)
{
    pthread_mutex_lock(&rl_wd.mu);
    int n = 0, i = 0;
    for (nodeset *s = rl_wd.sets; s; s = s->next) {
        n++;
        i += s->refs == 0;
    }
    if (idle) *idle = i;
    pthread_mutex_unlock(&rl_wd.mu);
    return n;
}
