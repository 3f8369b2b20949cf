/* redlock_metrics.c -- pool-wide metrics: RedLock::metrics() in the Prometheus text format (README "RedLock::metrics()").
 *
 * stats() counts per worker; an operator needs the pool. So one fixed table
 * (rlm_table) holds the counters of every process that shares it:
 * - one table per user: php-fpm's workers that run as one effective uid
 *   (every pool of that user) map one file only that uid can open
 *   (rlm_map_user); a CLI process maps an anonymous table its children
 *   inherit; every thread of a ZTS process updates the same memory. A
 *   process binds its table at its first request, never at MINIT: a table
 *   the master mapped would be inherited by the pools of every user (see
 *   "the extension" below). A new master makes new tables: a restarted
 *   pool starts at 0, and so does a new CLI process.
 * - redlock.metrics=0 (or no shared memory): the same table, but private to
 *   this process (static storage): metrics() shows this worker's figures.
 * - Updates are relaxed C11 atomic adds (a fetch_add, no lock, no system
 *   call): a worker killed at any instruction leaves every counter either
 *   added or not. A histogram observation is two adds (its bucket, its sum):
 *   the count is the sum of the buckets, so buckets, +Inf and _count always
 *   agree; only _sum may lack the observation a worker died in.
 * - Nodes: RLM_NODE_SLOTS slots claimed by node name, never freed (a slot
 *   keeps its name for the table's life), and one "other" slot for the nodes
 *   beyond. Claim rule (slot_claim): a slot's state word goes FREE -> CLAIMING
 *   (with the claimer's pid) -> READY by CAS, the name written in between; a
 *   reader uses only READY slots. A slot left CLAIMING by a process that died
 *   (SIGKILL between the CAS and READY) is taken over by the next claimer once
 *   kill(pid, 0) says the process is gone; one whose claimer still lives
 *   (stopped, or its pid reused) is waited for a bounded time, then skipped,
 *   and the skip is remembered in the slot (CLAIMING -> SKIPPED, the pid
 *   kept): no later claimer waits for that slot again, so a stuck claim costs
 *   one wait for the table's life, not one per lock(). A SKIPPED slot is
 *   taken over like a CLAIMING one once its claimer is gone, and becomes
 *   READY if the claimer resumes and finishes. Claimers take slots in order
 *   and wait for every CLAIMING slot before a later one, so one name gets one
 *   slot; should a skip ever give a name two, metrics() adds them up (one
 *   series per node, always). A state word of no kind above (a damaged
 *   table) is skipped at once, never written.
 * - Resources: RLM_RES_SLOTS slots by resource prefix (the resource up to its
 *   first ':', the whole resource when it has none; at most RLM_PREFIX_LEN
 *   bytes, compared byte for byte), claimed the same way, and one "other" slot
 *   for the prefixes beyond the table and the longer ones. A prefix's probe
 *   starts at the slot its hash names and goes on in order (wrapping), so the
 *   lookup of a lock() call is one slot in the usual case; the claim rule is
 *   the nodes' (claim(): the order of a probe is the same for every claimer of
 *   one prefix). Only the first lock() of a prefix may wait, for a claim of
 *   another process (the bounded wait above); every later one is a hash, a
 *   compare and atomic adds.
 *
 * - metrics() trusts nothing it reads from the table (any process sharing it
 *   can write it, a bug or a stray write can damage it): a node's name is
 *   read up to RLM_NAME_LEN - 1 bytes, a prefix's length is clamped to
 *   RLM_PREFIX_LEN, both copied before use, and a label is built in a fixed
 *   buffer that is never grown (sized for the longest clamped name).
 *
 * The table part (up to "the extension") uses no PHP API: tests/metrics/
 * table_test.c compiles it with RLM_TABLE_ONLY and drives it from threads and
 * processes. */
#include "php_redlock_int.h"
#ifndef RLM_TABLE_ONLY
#include "ext/standard/info.h"
#endif

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef PHP_WIN32
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
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

/* node round trips: loopback to a far region, up to the 60 s timeout limit */
static rlm_bounds rlm_lat = {.n = 17,
                             .le_us = {50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
                                       1000000, 2500000, 5000000, 10000000}};
/* lock() to acquisition: one round trip when free, retries and waits beyond */
static rlm_bounds rlm_wait = {.n = 17,
                              .le_us = {100, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
                                        1000000, 2500000, 5000000, 10000000, 30000000, 60000000}};
/* acquisition to release: a request's work up to a long job's */
static rlm_bounds rlm_hold = {.n = 14,
                              .le_us = {1000, 5000, 10000, 50000, 100000, 500000, 1000000, 5000000, 10000000, 30000000,
                                        60000000, 300000000, 900000000, 3600000000u}};

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

/* the first bucket whose bound is >= every value of each octave's lowest */
static void bounds_init(rlm_bounds *b)
{
    for (int k = 0; k < 64; k++) {
        uint64_t lo = k ? (uint64_t)1 << k : 0;
        int i = 0;
        while (i < b->n && b->le_us[i] < lo) i++;
        b->from[k] = (unsigned char)i;
    }
}

static void rlm_bounds_init(void)
{
    bounds_init(&rlm_lat);
    bounds_init(&rlm_wait);
    bounds_init(&rlm_hold);
}

static inline void rlm_observe(rlm_hist *h, const rlm_bounds *b, uint64_t us)
{
    int i = b->from[rlm_octave(us)]; /* no bucket before it can hold us */
    while (i < b->n && us > b->le_us[i]) i++;
    rlm_add(&h->bucket[i], 1);
    rlm_add(&h->sum_us, us);
}

/* ---------- node slots ---------- */

#ifndef PHP_WIN32
/* a claimer's pid as a slot holds it: 0 and values no pid_t can hold are damage, not a process */
static int pid_valid(uint32_t pid) { return pid != 0 && pid <= (uint32_t)INT32_MAX; }
static int pid_gone(uint32_t pid) { return pid_valid(pid) && kill((pid_t)pid, 0) != 0 && errno == ESRCH; }
static uint32_t self_pid(void) { return (uint32_t)getpid(); }
static void claim_pause(int round)
{
    if (round < 64) {
        sched_yield();
    } else {
        struct timespec ts = {0, 100000}; /* 100 µs */
        nanosleep(&ts, NULL);
    }
}
#else
/* the table is this process' (no fork): a claimer is a live thread */
static int pid_valid(uint32_t pid) { return pid != 0; }
static int pid_gone(uint32_t pid) { return 0; }
static uint32_t self_pid(void) { return 1; }
static void claim_pause(int round) { SwitchToThread(); }
#endif

static int claim_rounds(void) { return 64 + RLM_CLAIM_WAIT_US / 100; }

/* A table's slot: its state word first (rlm_node, rlm_res), what it names
 * compared and written by the table's own functions. */
typedef struct rlm_slots {
    char *base;
    size_t stride;
    int n;
    int (*same)(const void *slot, const void *key); /* a READY slot: is it key's? */
    void (*write)(void *slot, const void *key);     /* a slot being claimed: make it key's */
} rlm_slots;

static _Atomic uint64_t *slot_state(const rlm_slots *t, int i) { return (_Atomic uint64_t *)(t->base + t->stride * i); }

static int slot_take(const rlm_slots *t, int i, uint64_t expect, const void *key, uint32_t me)
{
    _Atomic uint64_t *st = slot_state(t, i);
    if (!atomic_compare_exchange_strong(st, &expect, RLM_CLAIMING | me)) return 0;
    /* ours until READY: no reader looks at what a slot being claimed names. A claimer
     * that waited for us in vain may have made it SKIPPED | me meanwhile; only a
     * claimer that saw us gone takes it from us, so the store cannot overwrite another's. */
    t->write(t->base + t->stride * i, key);
    atomic_store_explicit(st, RLM_READY, memory_order_release);
    return 1;
}

/* The slot of key: found, or claimed (see the rule at the top), probing from
 * slot start in order; -1 when none is left (the caller's "other"). */
static int claim(const rlm_slots *t, int start, const void *key)
{
    uint32_t me = self_pid();
    for (int k = 0; k < t->n; k++) {
        int i = (start + k) % t->n;
        _Atomic uint64_t *state = slot_state(t, i);
        for (int round = 0;; round++) {
            uint64_t st = atomic_load_explicit(state, memory_order_acquire);
            if (st == RLM_READY) {
                if (t->same(t->base + t->stride * i, key)) return i;
                break; /* another one's slot */
            }
            if (st == RLM_FREE) {
                if (slot_take(t, i, st, key, me)) return i;
                continue; /* another claimer was first: see what it claims */
            }
            uint32_t owner = (uint32_t)(st & 0xffffffffu);
            if ((RLM_KIND(st) != RLM_CLAIMING && RLM_KIND(st) != RLM_SKIPPED) || !pid_valid(owner))
                break; /* no state a claimer writes: damage, left alone */
            /* being claimed: the claimer copies a name and is done, unless it died there */
            if (owner != me && pid_gone(owner)) {
                if (slot_take(t, i, st, key, me)) return i;
                continue;
            }
            if (RLM_KIND(st) == RLM_SKIPPED) break; /* waited for in vain once: not again */
            if (round >= claim_rounds()) {
                /* a stopped claimer, or its pid reused: skip the slot, and say so in it (if it
                 * changed meanwhile, the claim went on: the next claimer sees what it became) */
                atomic_compare_exchange_strong(state, &st, RLM_SKIPPED | owner);
                break;
            }
            claim_pause(round);
        }
    }
    return -1;
}

static int node_same(const void *slot, const void *key)
{
    return strncmp(((const rlm_node *)slot)->name, key, RLM_NAME_LEN - 1) == 0;
}

static void node_write(void *slot, const void *key)
{
    rlm_node *s = slot;
    memset(s->name, 0, sizeof(s->name));
    snprintf(s->name, sizeof(s->name), "%s", (const char *)key);
}

/* The slot of node name; RLM_OTHER when none is left. */
static int slot_claim(rlm_table *t, const char *name)
{
    rlm_slots sl = {(char *)t->node, sizeof(rlm_node), RLM_NODE_SLOTS, node_same, node_write};
    int i = claim(&sl, 0, name);
    return i < 0 ? RLM_OTHER : i;
}

/* ---------- resource slots ---------- */

typedef struct rlm_prefix {
    const char *s;
    size_t len;
    uint64_t hash;
} rlm_prefix;

/* FNV-1a, 64 bit */
static inline uint64_t rlm_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* the prefix of a resource: up to its first ':' (the whole resource without one) */
static inline rlm_prefix rlm_prefix_of(const char *res, size_t len)
{
    const char *colon = memchr(res, ':', len);
    rlm_prefix p = {res, colon ? (size_t)(colon - res) : len, 0};
    p.hash = rlm_hash(p.s, p.len);
    return p;
}

static int res_same(const void *slot, const void *key)
{
    const rlm_res *s = slot;
    const rlm_prefix *p = key;
    return s->hash == p->hash && s->len == p->len && memcmp(s->name, p->s, p->len) == 0;
}

static void res_write(void *slot, const void *key)
{
    rlm_res *s = slot;
    const rlm_prefix *p = key;
    memset(s->name, 0, sizeof(s->name));
    memcpy(s->name, p->s, p->len);
    s->len = (uint32_t)p->len;
    s->hash = p->hash;
}

/* The slot of a resource's prefix: found or claimed; RLM_RES_OTHER when none is left or the prefix is too long. */
static int res_claim(rlm_table *t, const char *res, size_t len)
{
    rlm_prefix p = rlm_prefix_of(res, len);
    if (p.len > RLM_PREFIX_LEN) return RLM_RES_OTHER;
    int start = (int)(p.hash % RLM_RES_SLOTS);
    /* the usual case: the prefix's own slot, claimed long ago */
    rlm_res *s = &t->res[start];
    if (atomic_load_explicit(&s->state, memory_order_acquire) == RLM_READY && res_same(s, &p)) return start;
    rlm_slots sl = {(char *)t->res, sizeof(rlm_res), RLM_RES_SLOTS, res_same, res_write};
    int i = claim(&sl, start, &p);
    return i < 0 ? RLM_RES_OTHER : i;
}

/* ---------- the Prometheus text format 0.0.4 ---------- */

/* the exposition (malloc'd, grown as needed) or a caller's fixed buffer (a label:
 * fixed set, never grown; what does not fit sets oom and is left out) */
typedef struct rlm_buf {
    char *s;
    size_t len, cap;
    int oom, fixed;
} rlm_buf;

static void buf_put(rlm_buf *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        if (b->fixed) {
            b->oom = 1;
            return;
        }
        size_t cap = b->cap ? b->cap : 16384;
        while (cap < b->len + n + 1) cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void buf_str(rlm_buf *b, const char *s) { buf_put(b, s, strlen(s)); }

static void buf_u64(rlm_buf *b, uint64_t v)
{
    char tmp[24];
    buf_put(b, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v));
}

/* µs as decimal seconds, exactly: 2500 -> "0.0025", 1000000 -> "1" */
static void buf_seconds(rlm_buf *b, uint64_t us)
{
    char tmp[40];
    int n = snprintf(tmp, sizeof(tmp), "%llu.%06llu", (unsigned long long)(us / 1000000),
                     (unsigned long long)(us % 1000000));
    while (tmp[n - 1] == '0') n--;
    if (tmp[n - 1] == '.') n--;
    buf_put(b, tmp, (size_t)n);
}

/* length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4;
    else
        return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
        return 0; /* overlong, surrogate */
    if (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
        return 0; /* overlong, > U+10FFFF */
    return len;
}

/* a label value: \ " and newline escaped; a socket path that is not UTF-8 gets U+FFFD for each bad byte */
static void buf_label(rlm_buf *b, const char *v)
{
    const unsigned char *s = (const unsigned char *)v;
    size_t n = strlen(v);
    while (n > 0) {
        size_t l = utf8_len(s, n);
        if (l == 0) {
            buf_str(b, "\xef\xbf\xbd");
            l = 1;
        } else if (*s == '\\') {
            buf_str(b, "\\\\");
        } else if (*s == '"') {
            buf_str(b, "\\\"");
        } else if (*s == '\n') {
            buf_str(b, "\\n");
        } else {
            buf_put(b, (const char *)s, l);
        }
        s += l;
        n -= l;
    }
}

/* A resource prefix as a label value, binary-safe and one-to-one (two prefixes never share a
 * label): a backslash and a double quote escaped as the format says; '%', control bytes
 * (newline too) and every byte that is not part of valid UTF-8 as %XX (upper-case hex), so
 * that each '%' of the value starts such an escape and the prefix's bytes can be read back. */
static void buf_prefix(rlm_buf *b, const char *v, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)v;
    while (n > 0) {
        size_t l = utf8_len(s, n);
        if (l == 0 || *s < 0x20 || *s == 0x7f || *s == '%') {
            char e[3] = {'%', hex[*s >> 4], hex[*s & 15]};
            buf_put(b, e, 3);
            l = 1;
        } else if (*s == '\\') {
            buf_str(b, "\\\\");
        } else if (*s == '"') {
            buf_str(b, "\\\"");
        } else {
            buf_put(b, (const char *)s, l);
        }
        s += l;
        n -= l;
    }
}

/* k="v" then tail, into the caller's buffer out of cap bytes, never grown; v escaped as a
 * resource prefix of n bytes (buf_prefix), or, with n RLM_NODE_LABEL, as a NUL-terminated
 * node name (buf_label). 0 when it does not fit: rlm_render sizes out for the longest
 * clamped name, so only a bug gets there, and the series is left out rather than cut. */
#define RLM_NODE_LABEL SIZE_MAX
static int label_of(char *out, size_t cap, const char *k, const char *v, size_t n, const char *tail)
{
    rlm_buf lb = {out, 0, cap, 0, 1};
    out[0] = '\0';
    buf_str(&lb, k);
    buf_str(&lb, "=\"");
    if (n == RLM_NODE_LABEL)
        buf_label(&lb, v);
    else
        buf_prefix(&lb, v, n);
    buf_str(&lb, "\"");
    buf_str(&lb, tail);
    return !lb.oom;
}

static void buf_head(rlm_buf *b, const char *name, const char *type, const char *help)
{
    buf_str(b, "# HELP ");
    buf_str(b, name);
    buf_str(b, " ");
    buf_str(b, help);
    buf_str(b, "\n# TYPE ");
    buf_str(b, name);
    buf_str(b, " ");
    buf_str(b, type);
    buf_str(b, "\n");
}

/* name{labels} value: labels is "" or `k="v",` pairs already escaped, without braces */
static void buf_sample(rlm_buf *b, const char *name, const char *labels, uint64_t v)
{
    buf_str(b, name);
    if (labels[0]) {
        buf_str(b, "{");
        buf_str(b, labels);
        buf_str(b, "}");
    }
    buf_str(b, " ");
    buf_u64(b, v);
    buf_str(b, "\n");
}

/* a histogram's values read once (so its buckets, +Inf and _count agree) */
typedef struct rlm_hist_snap {
    uint64_t bucket[RLM_HIST_MAX], sum_us;
} rlm_hist_snap;

static void hist_read(rlm_hist_snap *into, const rlm_hist *h, int add)
{
    if (!add) memset(into, 0, sizeof(*into));
    for (int i = 0; i < RLM_HIST_MAX; i++) into->bucket[i] += atomic_load_explicit(&h->bucket[i], memory_order_relaxed);
    into->sum_us += atomic_load_explicit(&h->sum_us, memory_order_relaxed);
}

/* name_bucket{labels,le="..."} cumulative, +Inf last, then name_sum and name_count; labels escaped, may be "" */
static void buf_hist(rlm_buf *b, const char *name, const char *labels, const rlm_bounds *bd, const rlm_hist_snap *h)
{
    uint64_t cum = 0;
    for (int i = 0; i <= bd->n; i++) {
        cum += h->bucket[i];
        buf_str(b, name);
        buf_str(b, "_bucket{");
        if (labels[0]) {
            buf_str(b, labels);
            buf_str(b, ",");
        }
        buf_str(b, "le=\"");
        if (i < bd->n)
            buf_seconds(b, bd->le_us[i]);
        else
            buf_str(b, "+Inf");
        buf_str(b, "\"} ");
        buf_u64(b, cum);
        buf_str(b, "\n");
    }
    buf_str(b, name);
    buf_str(b, "_sum");
    if (labels[0]) {
        buf_str(b, "{");
        buf_str(b, labels);
        buf_str(b, "}");
    }
    buf_str(b, " ");
    buf_seconds(b, h->sum_us);
    buf_str(b, "\n");
    char cname[96];
    snprintf(cname, sizeof(cname), "%s_count", name);
    buf_sample(b, cname, labels, cum);
}

/* the nodes of the table, one entry per name (slots of one name added up) */
typedef struct rlm_node_snap {
    char name[RLM_NAME_LEN]; /* a copy, NUL-terminated whatever the slot holds */
    uint64_t req[RLM_REQ_COUNT];
    rlm_hist_snap lat;
} rlm_node_snap;

static int nodes_read(const rlm_table *t, rlm_node_snap *out)
{
    int n = 0;
    for (int i = 0; i <= RLM_NODE_SLOTS; i++) {
        const rlm_node *s = &t->node[i];
        char name[RLM_NAME_LEN] = "other";
        if (i < RLM_NODE_SLOTS) {
            if (atomic_load_explicit(&s->state, memory_order_acquire) != RLM_READY) continue;
            /* at most RLM_NAME_LEN - 1 bytes, terminated here: the slot's own NUL is not trusted */
            size_t len = strnlen(s->name, RLM_NAME_LEN - 1);
            memcpy(name, s->name, len);
            name[len] = '\0';
        }
        rlm_node_snap *e = NULL;
        for (int j = 0; j < n && !e; j++)
            if (strcmp(out[j].name, name) == 0) e = &out[j];
        int add = e != NULL;
        if (!e) {
            e = &out[n];
            memset(e, 0, sizeof(*e));
            memcpy(e->name, name, sizeof(name));
        }
        uint64_t any = 0;
        for (int r = 0; r < RLM_REQ_COUNT; r++) {
            uint64_t v = atomic_load_explicit(&s->req[r], memory_order_relaxed);
            e->req[r] += v;
            any |= v;
        }
        hist_read(&e->lat, &s->lat, add);
        for (int k = 0; k < RLM_HIST_MAX; k++) any |= e->lat.bucket[k];
        /* "other" only once a node went there */
        if (!add && (i < RLM_NODE_SLOTS || any)) n++;
    }
    return n;
}

/* the resource prefixes of the table, one entry per prefix (slots of one prefix added up; a
 * prefix named "other" is counted with the bucket of that name) */
typedef struct rlm_res_snap {
    char name[RLM_PREFIX_LEN]; /* a copy of len bytes */
    size_t len;
    uint64_t c[RLM_RES_COUNT], hold_us;
} rlm_res_snap;

static int res_read(const rlm_table *t, rlm_res_snap *out)
{
    int n = 0;
    for (int i = 0; i <= RLM_RES_SLOTS; i++) {
        const rlm_res *s = &t->res[i];
        const char *name = "other";
        size_t len = 5;
        if (i < RLM_RES_SLOTS) {
            if (atomic_load_explicit(&s->state, memory_order_acquire) != RLM_READY) continue;
            name = s->name;
            len = s->len;
            if (len > RLM_PREFIX_LEN) len = RLM_PREFIX_LEN; /* damaged: never past the name */
        }
        uint64_t v[RLM_RES_COUNT + 1], any = 0;
        for (int c = 0; c < RLM_RES_COUNT; c++) any |= v[c] = atomic_load_explicit(&s->c[c], memory_order_relaxed);
        any |= v[RLM_RES_COUNT] = atomic_load_explicit(&s->hold_us, memory_order_relaxed);
        if (i == RLM_RES_OTHER && !any) continue; /* "other" only once a prefix went there */
        rlm_res_snap *e = NULL;
        for (int j = 0; j < n && !e; j++)
            if (out[j].len == len && memcmp(out[j].name, name, len) == 0) e = &out[j];
        if (!e) {
            e = &out[n++];
            memset(e, 0, sizeof(*e));
            memcpy(e->name, name, len);
            e->len = len;
        }
        for (int c = 0; c < RLM_RES_COUNT; c++) e->c[c] += v[c];
        e->hold_us += v[RLM_RES_COUNT];
    }
    return n;
}

/* by prefix, bytewise (a shorter one first): the same order from every worker */
static int res_cmp(const void *a, const void *b)
{
    const rlm_res_snap *x = a, *y = b;
    int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static uint64_t counter(const rlm_table *t, int c)
{
    return atomic_load_explicit(&t->counter[c], memory_order_relaxed);
}

/* The whole exposition (malloc'd, NUL-terminated), NULL when out of memory. */
static char *rlm_render(const rlm_table *t, int shared, size_t *len)
{
    rlm_buf b = {0};
    rlm_node_snap *nodes = malloc(sizeof(*nodes) * (RLM_NODE_SLOTS + 1)); /* ~11 KiB: not on a thread's stack */
    rlm_res_snap *res = malloc(sizeof(*res) * (RLM_RES_SLOTS + 1));
    if (!nodes || !res) {
        free(nodes);
        free(res);
        return NULL;
    }
    int nn = nodes_read(t, nodes), nr = res_read(t, res);
    qsort(res, (size_t)nr, sizeof(*res), res_cmp);
    /* the longest label: a node name of RLM_NAME_LEN - 1 bytes, each 3 bytes escaped (U+FFFD), or a prefix
     * of RLM_PREFIX_LEN bytes each 3 (%XX); the fixed buffers below are never grown (rlm_buf.fixed) */
    char labels[(RLM_NAME_LEN - 1) * 3 + sizeof("node=\"\",result=\"timeout\"")];
    _Static_assert(RLM_PREFIX_LEN * 3 + sizeof("resource=\"\"") <= sizeof(labels), "a prefix label fits");

    buf_head(&b, "redlock_acquisitions_total", "counter",
             "Locks acquired by lock(), synchronized() and lockAll() (mode exclusive) and permits by "
             "semaphore() (mode permit); read locks (the option shared) count under mode shared.");
    buf_sample(&b, "redlock_acquisitions_total", "mode=\"exclusive\"", counter(t, REDLOCK_M_ACQ_EXCLUSIVE));
    buf_sample(&b, "redlock_acquisitions_total", "mode=\"shared\"", counter(t, REDLOCK_M_ACQ_SHARED));
    buf_sample(&b, "redlock_acquisitions_total", "mode=\"permit\"", counter(t, REDLOCK_M_ACQ_PERMIT));
    static const struct {
        const char *name, *help;
        int c;
    } plain[] = {
        {"redlock_conflicts_total",
         "lock() calls that returned null: another owner held the lock through every attempt, the validity came "
         "out <= 0, or the wait ran out.",
         REDLOCK_M_CONFLICTS},
        {"redlock_quorum_failures_total",
         "Calls that threw a QuorumException: fewer than a quorum of nodes answered (lock, isLocked, isHeld).",
         REDLOCK_M_QUORUM_FAILURES},
        {"redlock_lost_total",
         "auto_extend locks lost: a watchdog extension failed (counted when the request that held the lock ends).",
         REDLOCK_M_LOST},
        {"redlock_releases_total",
         "Releases a quorum confirmed: release(), synchronized() and request-end auto_release.", REDLOCK_M_RELEASES},
        {"redlock_attempts_total", "Acquisition attempts sent: the first of every lock() call and each retry.",
         REDLOCK_M_ATTEMPTS},
        {"redlock_wakeups_total",
         "Waits of lock() calls (wait, wake_on_release) that a release ended ahead of their retry timer, each sending "
         "the call to its next attempt.",
         REDLOCK_M_WAKEUPS},
    };
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        buf_head(&b, plain[i].name, "counter", plain[i].help);
        buf_sample(&b, plain[i].name, "", counter(t, plain[i].c));
    }
    buf_head(&b, "redlock_extensions_total", "counter",
             "Successful extensions: by=\"extend\" Lock::extend(), by=\"watchdog\" auto_extend (a worker reports "
             "its watchdog's at the end of each request, and when it calls metrics()).");
    buf_sample(&b, "redlock_extensions_total", "by=\"extend\"", counter(t, REDLOCK_M_EXTENSIONS));
    buf_sample(&b, "redlock_extensions_total", "by=\"watchdog\"", counter(t, REDLOCK_M_AUTO_EXTENSIONS));

    static const char *const results[RLM_REQ_COUNT] = {",result=\"ok\"", ",result=\"error\"", ",result=\"timeout\""};
    buf_head(&b, "redlock_node_requests_total", "counter",
             "Round trips to each node by result: ok, error (refused, i/o, authentication, error reply, back-off), "
             "timeout; what stats() counts, for the whole pool. node=\"other\": nodes beyond the table's 64.");
    for (int i = 0; i < nn; i++) {
        for (int r = 0; r < RLM_REQ_COUNT; r++) {
            if (label_of(labels, sizeof(labels), "node", nodes[i].name, RLM_NODE_LABEL, results[r]))
                buf_sample(&b, "redlock_node_requests_total", labels, nodes[i].req[r]);
        }
    }
    buf_head(&b, "redlock_node_latency_seconds", "histogram",
             "Round-trip time of the node answers a call waited for (a reply that comes after the call was decided "
             "counts as ok in redlock_node_requests_total, not here).");
    for (int i = 0; i < nn; i++) {
        if (label_of(labels, sizeof(labels), "node", nodes[i].name, RLM_NODE_LABEL, ""))
            buf_hist(&b, "redlock_node_latency_seconds", labels, &rlm_lat, &nodes[i].lat);
    }
    rlm_hist_snap h;
    buf_head(&b, "redlock_wait_seconds", "histogram",
             "Time from a lock() call to the acquisition, of the calls that acquired.");
    hist_read(&h, &t->wait, 0);
    buf_hist(&b, "redlock_wait_seconds", "", &rlm_wait, &h);
    buf_head(&b, "redlock_hold_seconds", "histogram",
             "Time from an acquisition to its release, of the releases a quorum confirmed.");
    hist_read(&h, &t->hold, 0);
    buf_hist(&b, "redlock_hold_seconds", "", &rlm_hold, &h);

    static const struct {
        const char *name, *help;
        int c;
    } per_res[] = {
        {"redlock_resource_acquisitions_total", "Locks acquired, by resource prefix (see redlock_acquisitions_total).",
         RLM_RES_ACQ},
        {"redlock_resource_conflicts_total", "lock() calls that returned null, by resource prefix.", RLM_RES_CONFLICT},
        {"redlock_resource_releases_total", "Releases a quorum confirmed, by resource prefix.", RLM_RES_RELEASE},
        {"redlock_resource_lost_total", "auto_extend and on_lost locks lost, by resource prefix.", RLM_RES_LOST},
        {"redlock_resource_hold_seconds_total",
         "Time from acquisition to release, summed over the releases a quorum confirmed of locks acquired by lock() "
         "(not restore()), by resource prefix.",
         -1},
    };
    for (size_t k = 0; k < sizeof(per_res) / sizeof(per_res[0]); k++) {
        char help[512];
        snprintf(help, sizeof(help),
                 "%s The prefix is the resource up to its first ':' (all of it without one; bytes that are not "
                 "UTF-8, control bytes and %% as %%XX); resource=\"other\": prefixes beyond the table's %d and "
                 "those over %d bytes.",
                 per_res[k].help, RLM_RES_SLOTS, RLM_PREFIX_LEN);
        buf_head(&b, per_res[k].name, "counter", help);
        for (int i = 0; i < nr; i++) {
            if (!label_of(labels, sizeof(labels), "resource", res[i].name, res[i].len, "")) continue;
            if (per_res[k].c >= 0) {
                buf_sample(&b, per_res[k].name, labels, res[i].c[per_res[k].c]);
            } else {
                buf_str(&b, per_res[k].name);
                buf_str(&b, "{");
                buf_str(&b, labels);
                buf_str(&b, "} ");
                buf_seconds(&b, res[i].hold_us);
                buf_str(&b, "\n");
            }
        }
    }

    uint64_t used = 0;
    for (int i = 0; i < RLM_NODE_SLOTS; i++)
        if (atomic_load_explicit(&t->node[i].state, memory_order_relaxed) != RLM_FREE) used++;
    buf_head(&b, "redlock_metrics_node_slots", "gauge",
             "Node slots of the metrics table in use, of 64 (nodes beyond are counted as node=\"other\"; a slot "
             "whose claim a stopped process left unfinished counts as in use).");
    buf_sample(&b, "redlock_metrics_node_slots", "", used);
    used = 0;
    for (int i = 0; i < RLM_RES_SLOTS; i++)
        if (atomic_load_explicit(&t->res[i].state, memory_order_relaxed) != RLM_FREE) used++;
    buf_head(&b, "redlock_metrics_resource_slots", "gauge",
             "Resource prefix slots of the metrics table in use, of 64 (prefixes beyond are counted as "
             "resource=\"other\").");
    buf_sample(&b, "redlock_metrics_resource_slots", "", used);
    buf_head(&b, "redlock_metrics_shared", "gauge",
             "1: the figures of every process sharing the table (the php-fpm workers that run as this user, or this "
             "process, its children and threads); 0: this process only (redlock.metrics=0, or no table to share).");
    buf_sample(&b, "redlock_metrics_shared", "", shared ? 1 : 0);
    free(nodes);
    free(res);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    *len = b.len;
    return b.s;
}

/* A zeroed shared table (NULL when it cannot be had). */
static rlm_table *rlm_map_shared(void)
{
#ifndef PHP_WIN32
    _Atomic uint64_t probe;
    /* an atomic that is not lock-free is a lock of this process only: useless across processes */
    if (!atomic_is_lock_free(&probe)) return NULL;
    void *m = mmap(NULL, sizeof(rlm_table), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : (rlm_table *)m;
#else
    return NULL;
#endif
}

static void rlm_unmap(rlm_table *t)
{
#ifndef PHP_WIN32
    munmap(t, sizeof(*t));
#endif
}

#ifndef PHP_WIN32
/* A file table's name in its user's directory: the process that ran MINIT (php-fpm's
 * master) and a random number of that MINIT (a master that exec()s itself to reload
 * keeps its pid, not its number). */
static void rlm_file_name(char *out, size_t n, pid_t master, uint64_t nonce)
{
    snprintf(out, n, "%d-%016llx", (int)master, (unsigned long long)nonce);
}

/* In a directory this one just created a file in: the files of masters that are gone,
 * and of this master before it exec()ed itself. Names of another form are left alone. */
static void rlm_remove_stale(int dfd, const char *mine, pid_t master)
{
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int pid;
        unsigned long long nonce;
        char again[64];
        if (sscanf(e->d_name, "%d-%16llx", &pid, &nonce) != 2 || pid <= 0) continue;
        rlm_file_name(again, sizeof(again), (pid_t)pid, nonce);
        if (strcmp(again, e->d_name) != 0 || strcmp(e->d_name, mine) == 0) continue;
        if (pid == master || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}

/* The table of the processes of user euid forked by one master (php-fpm's workers of
 * every pool that runs as euid): the file base/redlock-metrics.<euid>/<master>-<nonce>,
 * mode 0600 in a directory of mode 0700, both owned by euid: no process of another user
 * (but root) can open it. The first worker creates it (zero-filled: an empty table),
 * the others open it. NULL, with why, when it cannot be had or is not euid's alone (a
 * directory another user made under that name is not used). */
static rlm_table *rlm_map_user(const char *base, uid_t euid, pid_t master, uint64_t nonce, char *why, size_t wn)
{
    _Atomic uint64_t probe;
    if (!atomic_is_lock_free(&probe)) {
        snprintf(why, wn, "no lock-free atomics");
        return NULL;
    }
    char dir[256], name[64];
    struct stat st;
    snprintf(dir, sizeof(dir), "%s/redlock-metrics.%u", base, (unsigned)euid);
    rlm_file_name(name, sizeof(name), master, nonce);
    if (mkdir(dir, 0700) == 0) {
        chmod(dir, 0700); /* a umask may have left it unusable; never wider */
    } else if (errno != EEXIST) {
        snprintf(why, wn, "%s: %s", dir, strerror(errno));
        return NULL;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0 || fstat(dfd, &st) != 0 || st.st_uid != euid || (st.st_mode & 077)) {
        snprintf(why, wn, "%s is not this user's alone", dir);
        if (dfd >= 0) close(dfd);
        return NULL;
    }
    int fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int created = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    void *m = MAP_FAILED;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != euid || (st.st_mode & 077)) {
        snprintf(why, wn, "%s/%s: %s", dir, name, fd < 0 ? strerror(errno) : "not this user's alone");
    } else if (st.st_size < (off_t)sizeof(rlm_table) && ftruncate(fd, (off_t)sizeof(rlm_table)) != 0) {
        /* a sibling that opens it before the creator sized it sizes it too: the same size, zeros */
        snprintf(why, wn, "%s/%s: %s", dir, name, strerror(errno));
    } else {
        m = mmap(NULL, sizeof(rlm_table), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) snprintf(why, wn, "mmap: %s", strerror(errno));
    }
    if (fd >= 0) close(fd);
    if (created && m != MAP_FAILED) rlm_remove_stale(dfd, name, master);
    close(dfd);
    return m == MAP_FAILED ? NULL : (rlm_table *)m;
}
#endif

#ifndef RLM_TABLE_ONLY
/* ---------- the extension ---------- */

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
static bool rlm_on;                             /* redlock.metrics, read at MINIT */
static char rlm_why[320] = "redlock.metrics=0"; /* private: why; shared: what */
static _Atomic uint64_t rlm_wd_seen;            /* the watchdog's extensions this process has reported */
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
static void retrack_pooled(php_redlock_pooled *p, void *ctx)
{
    (void)ctx;
    if (!p->sub) p->mseen.node = &rlm_t->node[slot_claim(rlm_t, p->name)];
}

/* rlm_bind_lock held: the table of this process for euid (see above) */
static void rlm_bind(uint64_t gen, uid_t euid)
{
    bool inherited_same_user = atomic_load(&rlm_bound_gen) != 0 && rlm_bound_euid == euid;
    if (rlm_on && !inherited_same_user) {
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
        /* this thread's connections count into the new table from now on */
        php_redlock_pool_each(retrack_pooled, NULL);
#ifndef ZTS
        /* another user's figures: out of this process (in a ZTS process another thread may be in an update) */
        if (old) rlm_unmap(old);
#else
        (void)old;
#endif
    }
    rlm_bound_euid = euid;
    atomic_store(&rlm_bound_gen, gen);
}
#endif

void php_redlock_metrics_rinit(void)
{
#ifndef PHP_WIN32
    uint64_t gen = rl_fork_generation();
    uid_t euid = geteuid();
    /* every request but a process' first: a load and a compare */
    if (atomic_load_explicit(&rlm_bound_gen, memory_order_acquire) == gen && rlm_bound_euid == euid) return;
    pthread_mutex_lock(&rlm_bind_lock);
    if (atomic_load(&rlm_bound_gen) != gen || rlm_bound_euid != euid) rlm_bind(gen, euid);
    pthread_mutex_unlock(&rlm_bind_lock);
#endif
}

void php_redlock_metrics_shutdown(void)
{
    if (!rlm_is_shared) return;
    rlm_table *t = rlm_t;
    rlm_t = &rlm_private;
    rlm_is_shared = false;
    rlm_unmap(t);
}

void php_redlock_metrics_add(enum php_redlock_metric m, uint64_t n) { rlm_add(&rlm_t->counter[m], n); }

int php_redlock_metrics_resource(const char *resource, size_t len) { return res_claim(rlm_t, resource, len); }

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
    p->mseen = (php_redlock_mseen){.node = &rlm_t->node[slot_claim(rlm_t, p->name)], .st = rl_conn_stats(p->conn)};
    p->mseen.ok = p->mseen.st->ok;
    p->mseen.errors = p->mseen.st->errors;
    p->mseen.timeouts = p->mseen.st->timeouts;
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

/* the watchdog's successful extensions (one counter per process, any thread may report) */
static void watchdog_sync(void)
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

static void sync_pooled(php_redlock_pooled *p, void *ctx)
{
    (void)ctx;
    if (!p->sub) node_sync(p->mseen.node, p);
}

void php_redlock_metrics_sync_pool(void)
{
    php_redlock_pool_each(sync_pooled, NULL);
    watchdog_sync();
}

void php_redlock_metrics_info(void)
{
    char buf[sizeof(rlm_why) + 32];
    rlm_table *t = rlm_t;
    php_redlock_metrics_sync_pool();
    if (rlm_is_shared) {
        snprintf(buf, sizeof(buf), "shared by %s, %zu KiB", rlm_why, (sizeof(rlm_table) + 1023) / 1024);
    } else {
        snprintf(buf, sizeof(buf), "this process only (%s)", rlm_why);
    }
    php_info_print_table_row(2, "Metrics", buf);
    static const struct {
        const char *label;
        int c;
    } rows[] = {
        {"Metrics: acquisitions", REDLOCK_M_ACQ_EXCLUSIVE},
        {"Metrics: conflicts", REDLOCK_M_CONFLICTS},
        {"Metrics: quorum failures", REDLOCK_M_QUORUM_FAILURES},
        {"Metrics: releases", REDLOCK_M_RELEASES},
        {"Metrics: extensions", REDLOCK_M_EXTENSIONS},
        {"Metrics: watchdog extensions", REDLOCK_M_AUTO_EXTENSIONS},
        {"Metrics: lost locks", REDLOCK_M_LOST},
        {"Metrics: attempts", REDLOCK_M_ATTEMPTS},
        {"Metrics: wake-ups", REDLOCK_M_WAKEUPS},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        uint64_t v = counter(t, rows[i].c);
        if (rows[i].c == REDLOCK_M_ACQ_EXCLUSIVE)
            v += counter(t, REDLOCK_M_ACQ_SHARED) + counter(t, REDLOCK_M_ACQ_PERMIT);
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
        php_info_print_table_row(2, rows[i].label, buf);
    }
    int used = 0;
    for (int i = 0; i < RLM_NODE_SLOTS; i++)
        if (atomic_load_explicit(&t->node[i].state, memory_order_relaxed) != RLM_FREE) used++;
    snprintf(buf, sizeof(buf), "%d of %d", used, RLM_NODE_SLOTS);
    php_info_print_table_row(2, "Metrics: node slots", buf);
    used = 0;
    for (int i = 0; i < RLM_RES_SLOTS; i++)
        if (atomic_load_explicit(&t->res[i].state, memory_order_relaxed) != RLM_FREE) used++;
    snprintf(buf, sizeof(buf), "%d of %d", used, RLM_RES_SLOTS);
    php_info_print_table_row(2, "Metrics: resource prefix slots", buf);
}

PHP_METHOD(RedLock, metrics)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_redlock_metrics_sync_pool();
    size_t len = 0;
    char *s = rlm_render(rlm_t, rlm_is_shared, &len);
    if (!s) {
        zend_throw_error(NULL, "RedLock::metrics(): out of memory");
        RETURN_THROWS();
    }
    RETVAL_STRINGL(s, len);
    free(s);
}
#endif
