/* redlock_metrics_table.c -- the metrics table in shared memory: its slots for nodes and resource prefixes, and
 * where it is mapped (README "RedLock::metrics()"). The layout and the updates are in redlock_metrics_table.h.
 *
 * stats() counts per worker; an operator needs the pool. So one fixed table
 * (rlm_table) holds the counters of every process that shares it:
 * - one table per user: php-fpm's workers that run as one effective uid
 *   (every pool of that user) map one file only that uid can open
 *   (rlm_map_user); a CLI process maps an anonymous table its children
 *   inherit; every thread of a ZTS process updates the same memory. A
 *   process binds its table at its first request, never at MINIT: a table
 *   the master mapped would be inherited by the pools of every user (see
 *   redlock_metrics.c). A new master makes new tables: a restarted
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
 *   beyond. Claim rule (rlm_node_claim): a slot's state word goes FREE -> CLAIMING
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
 * No PHP API: tests/metrics/table_test.c compiles it (with redlock_metrics_text.c) and drives it from threads
 * and processes. Which table a process uses is redlock_metrics.c's. */
#include "redlock_metrics_table.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef PHP_WIN32
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

/* node round trips: loopback to a far region, up to the 60 s timeout limit */
rlm_bounds rlm_lat = {.n = 17,
                      .le_us = {50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
                                1000000, 2500000, 5000000, 10000000}};
/* lock() to acquisition: one round trip when free, retries and waits beyond */
rlm_bounds rlm_wait = {.n = 17,
                       .le_us = {100, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
                                 1000000, 2500000, 5000000, 10000000, 30000000, 60000000}};
/* acquisition to release: a request's work up to a long job's */
rlm_bounds rlm_hold = {.n = 14,
                       .le_us = {1000, 5000, 10000, 50000, 100000, 500000, 1000000, 5000000, 10000000, 30000000,
                                 60000000, 300000000, 900000000, 3600000000u}};

/* ---------- histograms ---------- */

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

void rlm_bounds_init(void)
{
    bounds_init(&rlm_lat);
    bounds_init(&rlm_wait);
    bounds_init(&rlm_hold);
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

int rlm_node_claim(rlm_table *t, const char *name)
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

int rlm_res_claim(rlm_table *t, const char *res, size_t len)
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

/* ---------- where the table is mapped ---------- */

rlm_table *rlm_map_shared(void)
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

void rlm_unmap(rlm_table *t)
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
rlm_table *rlm_map_user(const char *base, uid_t euid, pid_t master, uint64_t nonce, char *why, size_t wn)
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
