/* rl_watchdog.c -- the auto_extend watchdog: one background thread per process that keeps extending
 * watched locks, on its own connections, until they are released, lost or held for max_hold.
 * This file is the thread and its wake-ups: its start (by rl_watch_start or rl_watchdog_poke), its
 * loop and timed waits, the one-shot timers, fork() and shutdown. The watches themselves, their
 * node sets and what one extension decides are rl_watch.c's (one file until issue 38 split it
 * there); what the two share is rl_watchdog_int.h. */
#include "rl_watchdog_int.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_once_t wd_once = PTHREAD_ONCE_INIT;

/* ---- fork: a child has no watchdog thread ---- */

static void poke_unlink(rl_poke *p);

/* fork() waits for an extension in flight and starts no other until it
 * returns: the child then inherits no half-done round trip, and no lock the
 * thread took inside it (an allocator's, a resolver's, that a sanitizer's
 * allocator does not reset in the child); the thread holds rl_wd.mu only for
 * bookkeeping, so with rl_wd.mu held here it is blocked or waiting. */
static void on_fork_prepare(void)
{
    pthread_mutex_lock(&rl_wd.mu);
    rl_wd.forking = 1;
    while (rl_wd.extending) pthread_cond_wait(&rl_wd.idle, &rl_wd.mu);
}
static void on_fork_parent(void)
{
    rl_wd.forking = 0;
    pthread_cond_signal(&rl_wd.wake);
    pthread_mutex_unlock(&rl_wd.mu);
}

static void init_conds(void)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    /* the thread's timed waits count on CLOCK_MONOTONIC: a wall clock step
     * must not delay an extension */
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&rl_wd.wake, &ca);
    pthread_cond_init(&rl_wd.idle, &ca);
    pthread_condattr_destroy(&ca);
}

/* Only the forking thread lives on in the child, holding rl_wd.mu (taken in
 * prepare, so no watch was half-updated). The child does not take over the
 * parent's locks: its copies of the watches stop (the parent keeps extending
 * them), its copies of the connections are closed (close(2) only: the
 * parent's sockets are untouched), and the next rl_watch_start() here starts
 * a thread of its own. Nothing is joined: the thread does not exist here. */
static void on_fork_child(void)
{
    while (rl_wd.active) {
        rl_watch *w = rl_wd.active;
        w->busy = 0;
        w->paused = 0;
        rl_wd_deactivate(w, RL_WATCH_FORKED);
    }
    /* a set the thread was extending through (its extra reference) */
    while (rl_wd.sets) rl_wd_free_set(rl_wd.sets);
    while (rl_wd.pokes) poke_unlink(rl_wd.pokes); /* the parent's threads' (and this one's: its thread is gone) */
    rl_wd.heap_n = 0;
    rl_wd.running = 0;
    rl_wd.ready = 0;
    rl_wd.stopping = 0;
    rl_wd.extending = 0;
    rl_wd.forking = 0;
    init_conds(); /* their waiters were other threads: gone */
    pthread_mutex_unlock(&rl_wd.mu);
}

static void wd_init(void)
{
    init_conds();
    pthread_atfork(on_fork_prepare, on_fork_parent, on_fork_child);
}

static void timed_wait(uint64_t us)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + (us % 1000000u) * 1000u;
    ts.tv_sec += (time_t)(us / 1000000u + ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    pthread_cond_timedwait(&rl_wd.wake, &rl_wd.mu, &ts);
}

/* ---- one-shot timers (rl_watchdog_poke) ---- */

static void poke_unlink(rl_poke *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        rl_wd.pokes = p->next;
    if (p->next) p->next->prev = p->prev;
    p->prev = p->next = NULL;
    p->armed = 0;
}

/* the due ones called (under rl_wd.mu); returns when the next is due, 0: none armed */
static uint64_t fire_pokes(uint64_t now)
{
    uint64_t next = 0;
    for (rl_poke *p = rl_wd.pokes, *nx; p; p = nx) {
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
    pthread_mutex_lock(&rl_wd.mu);
    rl_wd.ready = 1;
    pthread_cond_broadcast(&rl_wd.idle);
    while (!rl_wd.stopping) {
        uint64_t now = now_us(), idle_at = rl_wd_expire_idle(now), poke_at = fire_pokes(now);
        if (rl_wd.forking || (rl_wd.heap_n == 0 && !idle_at && !poke_at)) {
            pthread_cond_wait(&rl_wd.wake, &rl_wd.mu);
            continue;
        }
        /* (a watch's time may be 0: due at once) */
        uint64_t at = earliest(idle_at, poke_at);
        if (rl_wd.heap_n && (!at || rl_wd_wake_at(rl_wd.heap[0]) < at)) at = rl_wd_wake_at(rl_wd.heap[0]);
        if (at > now) {
            timed_wait(at - now);
            continue;
        }
        if (rl_wd.heap_n) rl_wd_extend_one(rl_wd.heap[0], now);
    }
    pthread_mutex_unlock(&rl_wd.mu);
    return NULL;
}

/* under rl_wd.mu */
static int start_thread(void)
{
    if (rl_wd.running) return 0;
    sigset_t all, old;
    sigfillset(&all);
    /* the thread takes no signal: they stay with the caller's threads (PHP's
     * timeouts, a program's SIGCHLD) */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&rl_wd.thread, NULL, wd_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) return -1;
    rl_wd.running = 1;
    /* a fork() must not copy a thread that is still starting up (it may hold
     * allocator locks then): wait until it runs its loop */
    while (!rl_wd.ready) pthread_cond_wait(&rl_wd.idle, &rl_wd.mu);
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
    /* without rl_wd.mu: a lookup here holds no extension; a deadline needs no connection */
    if (!w->deadline_only) rl_wd_caller_addrs(spec, ho);

    pthread_mutex_lock(&rl_wd.mu);
    if (rl_wd.heap_cap <= rl_wd.n_active) {
        int cap = rl_wd.heap_cap ? rl_wd.heap_cap * 2 : 16;
        rl_watch **h = realloc(rl_wd.heap, sizeof(*h) * (size_t)cap);
        if (!h) goto fail;
        rl_wd.heap = h;
        rl_wd.heap_cap = cap;
    }
    if (!w->deadline_only && !(w->ns = rl_wd_set_get(spec, ho))) goto fail;
    if (start_thread() != 0) {
        rl_wd_set_unref(w->ns);
        goto fail;
    }
    w->state = RL_WATCH_ACTIVE;
    w->next = rl_wd.active;
    if (rl_wd.active) rl_wd.active->prev = w;
    rl_wd.active = w;
    rl_wd.n_active++;
    rl_wd_heap_push(w);
    pthread_cond_signal(&rl_wd.wake);
    pthread_mutex_unlock(&rl_wd.mu);
    return w;
fail:
    pthread_mutex_unlock(&rl_wd.mu);
    rl_wd_watch_free(w);
    return NULL;
}

int rl_watchdog_poke(rl_poke *p, uint64_t delay_us)
{
    pthread_once(&wd_once, wd_init);
    pthread_mutex_lock(&rl_wd.mu);
    int rc = 0;
    if (p->armed) {
        /* its earlier time stands */
    } else if (start_thread() != 0) {
        rc = -1;
    } else {
        p->at_us = now_us() + delay_us;
        p->armed = 1;
        p->prev = NULL;
        p->next = rl_wd.pokes;
        if (rl_wd.pokes) rl_wd.pokes->prev = p;
        rl_wd.pokes = p;
        pthread_cond_signal(&rl_wd.wake);
    }
    pthread_mutex_unlock(&rl_wd.mu);
    return rc;
}

void rl_watchdog_poke_cancel(rl_poke *p)
{
    pthread_once(&wd_once, wd_init);
    pthread_mutex_lock(&rl_wd.mu); /* a callback runs under it: none is running once we have it */
    if (p->armed) poke_unlink(p);
    pthread_mutex_unlock(&rl_wd.mu);
}

int rl_watchdog_active(int *thread_running)
{
    pthread_mutex_lock(&rl_wd.mu);
    int n = rl_wd.n_active;
    if (thread_running) *thread_running = rl_wd.running;
    pthread_mutex_unlock(&rl_wd.mu);
    return n;
}

void rl_watchdog_shutdown(void)
{
    pthread_mutex_lock(&rl_wd.mu);
    if (rl_wd.running) {
        pthread_t th = rl_wd.thread;
        rl_wd.stopping = 1;
        pthread_cond_signal(&rl_wd.wake);
        pthread_mutex_unlock(&rl_wd.mu);
        pthread_join(th, NULL); /* it finishes the extension in flight, then returns */
        pthread_mutex_lock(&rl_wd.mu);
        rl_wd.running = 0;
        rl_wd.ready = 0;
        rl_wd.stopping = 0;
    }
    while (rl_wd.active) rl_wd_deactivate(rl_wd.active, RL_WATCH_STOPPED);
    while (rl_wd.pokes) poke_unlink(rl_wd.pokes);
    while (rl_wd.sets) rl_wd_free_set(rl_wd.sets); /* the idle ones kept for reuse */
    free(rl_wd.heap);
    rl_wd.heap = NULL;
    rl_wd.heap_n = rl_wd.heap_cap = 0;
    pthread_mutex_unlock(&rl_wd.mu);
}
