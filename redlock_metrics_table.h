/* redlock_metrics_table.h -- the layout of the metrics table in shared memory, its updates (relaxed atomic adds)
 * and its functions: the slots and the mapping (redlock_metrics_table.c), the Prometheus text
 * (redlock_metrics_text.c). No PHP API: tests/metrics/table_test.c builds the table's files alone. */
#ifndef REDLOCK_METRICS_TABLE_H
#define REDLOCK_METRICS_TABLE_H

#include "php_redlock_int.h"

#include <stdatomic.h>
#include <stdint.h>
#ifndef PHP_WIN32
#include <sys/types.h>
#endif

#define RLM_NODE_SLOTS 64
#define RLM_OTHER RLM_NODE_SLOTS /* the slot of every node beyond the table */
#define RLM_NAME_LEN 128         /* = php_redlock_pooled.name */
#define RLM_HIST_MAX 18          /* buckets of a histogram, +Inf included */
#define RLM_RES_SLOTS 64
#define RLM_RES_OTHER RLM_RES_SLOTS /* the slot of every prefix beyond the table */
#define RLM_PREFIX_LEN 64           /* a longer prefix counts in "other" */

/* a slot's state word: the kind in the high half, the claimer's pid in the low */
#define RLM_FREE 0
#define RLM_READY ((uint64_t)1 << 32)
#define RLM_CLAIMING ((uint64_t)2 << 32)
#define RLM_SKIPPED ((uint64_t)3 << 32) /* CLAIMING, waited for once in vain: nobody waits again */
#define RLM_KIND(st) ((st) & ~(uint64_t)0xffffffffu)
/* how long a claimer waits for a slot another live process is claiming */
#define RLM_CLAIM_WAIT_US 10000

typedef struct rlm_hist {
    _Atomic uint64_t bucket[RLM_HIST_MAX]; /* not cumulative: [i] counts le[i-1] < v <= le[i] */
    _Atomic uint64_t sum_us;
} rlm_hist;

/* a histogram's finite upper bounds in µs (the last bucket is +Inf) */
typedef struct rlm_bounds {
    int n;
    uint64_t le_us[RLM_HIST_MAX - 1];
    /* by a value's octave (its highest bit): the first bucket it can fall in, so
     * that an observation costs a compare or two (bounds_init; all 0 before: still right) */
    unsigned char from[64];
} rlm_bounds;

/* the histograms' bounds (redlock_metrics_table.c): node round trips, lock() to
 * acquisition, acquisition to release */
extern rlm_bounds rlm_lat, rlm_wait, rlm_hold;

enum { RLM_REQ_OK, RLM_REQ_ERROR, RLM_REQ_TIMEOUT, RLM_REQ_COUNT };

typedef struct rlm_node {
    _Alignas(64) _Atomic uint64_t state; /* one slot per cache line: workers of other nodes do not contend */
    _Atomic uint64_t req[RLM_REQ_COUNT];
    rlm_hist lat;
    char name[RLM_NAME_LEN]; /* NUL-terminated; written once, before READY */
} rlm_node;

enum { RLM_RES_ACQ, RLM_RES_CONFLICT, RLM_RES_RELEASE, RLM_RES_LOST, RLM_RES_COUNT };

typedef struct rlm_res {
    _Alignas(64) _Atomic uint64_t state; /* as a node slot's; one slot per cache line (128 bytes) */
    _Atomic uint64_t c[RLM_RES_COUNT];
    _Atomic uint64_t hold_us; /* sum of the hold times of its confirmed releases */
    uint64_t hash;            /* of the prefix (rlm_hash); these three written once, before READY */
    uint32_t len;
    char name[RLM_PREFIX_LEN]; /* len bytes, not NUL-terminated */
} rlm_res;

typedef struct rlm_table {
    _Atomic uint64_t counter[REDLOCK_M_COUNT];
    rlm_hist wait, hold;
    rlm_node node[RLM_NODE_SLOTS + 1]; /* [RLM_OTHER]: "other" */
    rlm_res res[RLM_RES_SLOTS + 1];    /* [RLM_RES_OTHER]: "other" */
} rlm_table;

/* ---------- updates: the hot path ---------- */

static inline void rlm_add(_Atomic uint64_t *c, uint64_t n) { atomic_fetch_add_explicit(c, n, memory_order_relaxed); }

static inline int rlm_octave(uint64_t us)
{
#if defined(__GNUC__) || defined(__clang__)
    return us ? 63 - __builtin_clzll(us) : 0;
#else
    int k = 0;
    while (us >>= 1) k++;
    return k;
#endif
}

static inline void rlm_observe(rlm_hist *h, const rlm_bounds *b, uint64_t us)
{
    int i = b->from[rlm_octave(us)]; /* no bucket before it can hold us */
    while (i < b->n && us > b->le_us[i]) i++;
    rlm_add(&h->bucket[i], 1);
    rlm_add(&h->sum_us, us);
}

/* ---------- the table (redlock_metrics_table.c) ---------- */

/* MINIT: the bounds' octave index (rlm_bounds.from) */
void rlm_bounds_init(void);
/* The slot of node name: found or claimed; RLM_OTHER when none is left. */
int rlm_node_claim(rlm_table *t, const char *name);
/* The slot of a resource's prefix: found or claimed; RLM_RES_OTHER when none is left or the prefix is too long. */
int rlm_res_claim(rlm_table *t, const char *res, size_t len);
/* A zeroed shared table of this process and its children (NULL when it cannot be had). */
rlm_table *rlm_map_shared(void);
void rlm_unmap(rlm_table *t);
#ifndef PHP_WIN32
/* The table of the processes of user euid forked by one master, in base/redlock-metrics.<euid>/;
 * NULL, with why, when it cannot be had or is not euid's alone. */
rlm_table *rlm_map_user(const char *base, uid_t euid, pid_t master, uint64_t nonce, char *why, size_t wn);
#endif

/* ---------- the Prometheus text format (redlock_metrics_text.c) ---------- */

/* The whole exposition of t (malloc'd, NUL-terminated), NULL when out of memory. */
char *rlm_render(const rlm_table *t, int shared, size_t *len);

#ifndef RLM_TABLE_ONLY
/* ---------- this process' table (redlock_metrics.c) ---------- */

#define RLM_WHY_LEN 320 /* php_redlock_metrics_table()'s why, with its NUL */
/* the table every update of this process goes to; *shared: shared with other
 * processes; *why (unless NULL): by whom (shared), or why not */
const rlm_table *php_redlock_metrics_table(bool *shared, const char **why);
#endif

#endif
