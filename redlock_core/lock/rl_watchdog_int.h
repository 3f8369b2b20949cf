/* rl_watchdog_int.h -- what the watchdog's two files share, and nothing else includes: the watch
 * (struct rl_watch), the process' watchdog state (rl_wd, defined in rl_watch.c), and the steps
 * of rl_watch.c that the thread's file calls. rl_watchdog.c is the thread (its start, loop, timed
 * wake-ups, one-shot timers, fork, shutdown); rl_watch.c the watches and their node sets, one
 * extension and its outcome, and the caller's calls on a watch. The thread's file calls down
 * into rl_watch.c, never the other way round. */
#ifndef RL_WATCHDOG_INT_H
#define RL_WATCHDOG_INT_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl_conn.h"

#include <pthread.h>

/* Shared by the watchdog's two files only: kept out of the extension's
 * dynamic symbols (nothing here is the core's API; that is rl.h). */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* the connections of one node list, shared by the watches on it (rl_watch.c) */
typedef struct nodeset nodeset;

struct rl_watch {
    /* everything below is guarded by rl_wd.mu */
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
struct rl_wd_state {
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
};
extern struct rl_wd_state rl_wd;

static inline uint64_t now_us(void) { return rl_clock_monotonic.now_us(rl_clock_monotonic.ctx); }

/* ---- rl_watch.c's steps that the thread's file takes (each under rl_wd.mu) ---- */

/* when the thread must wake for w: its next extension, its max_hold, or (deadline_only) its validity's end */
uint64_t rl_wd_wake_at(const rl_watch *w);
/* room was reserved at rl_watch_start (heap_cap >= active watches) */
void rl_wd_heap_push(rl_watch *w);
/* a node set freed, its connections closed */
void rl_wd_free_set(nodeset *s);
/* idle sets past their time freed; when the next one is due, 0 when none is idle */
uint64_t rl_wd_expire_idle(uint64_t now);
/* a watch's reference on its node set dropped (NULL: none) */
void rl_wd_set_unref(nodeset *s);
/* the addresses (and run_ids) of spec's nodes, in the caller's thread, without rl_wd.mu */
void rl_wd_caller_addrs(const rl_watch_spec *spec, rl_conn_handoff *ho);
/* the node set of spec's nodes, found or made, with a reference for the new watch; NULL: out of memory */
nodeset *rl_wd_set_get(const rl_watch_spec *spec, const rl_conn_handoff *ho);
/* a watch's memory freed, its token wiped (rl_watch_start's failure) */
void rl_wd_watch_free(rl_watch *w);
/* a watch ended with state (enum rl_watch_state) */
void rl_wd_deactivate(rl_watch *w, int state);
/* one due watch extended, or found lost (the mutex is let go for the round trip) */
void rl_wd_extend_one(rl_watch *w, uint64_t now);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
