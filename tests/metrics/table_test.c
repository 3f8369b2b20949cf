/* table_test.c -- the metrics table (redlock_metrics_table.c; rlm_render() of redlock_metrics_text.c, RLM_TABLE_ONLY)
 * from threads and processes: every thread's and every process' adds summed exactly (a ZTS process, a php-fpm
 * pool), one slot per node name under racing claims, a claim left half-done by a SIGKILLed process taken over, a
 * live stuck claimer skipped in bounded time, a process SIGKILLed mid-update leaving the table usable, the "other"
 * slot, and label escaping; the same of the resource prefix slots. Built and run by tests/metrics/table_test.sh
 * (ThreadSanitizer). */
#define RLM_TABLE_ONLY
#include "../../redlock_metrics_table.c"
#include "../../redlock_metrics_text.c"

#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../../redlock_core/tests/check.h"

/* php.h maps snprintf to PHP's own; outside PHP, libc's */
#undef snprintf
#undef vsnprintf
int ap_php_snprintf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n;
}

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t hist_count(const rlm_hist *h)
{
    uint64_t n = 0;
    for (int i = 0; i < RLM_HIST_MAX; i++) n += atomic_load(&h->bucket[i]);
    return n;
}

static int ready_slots(const rlm_table *t)
{
    int n = 0;
    for (int i = 0; i < RLM_NODE_SLOTS; i++) n += atomic_load(&t->node[i].state) == RLM_READY;
    return n;
}

static int ready_res(const rlm_table *t)
{
    int n = 0;
    for (int i = 0; i < RLM_RES_SLOTS; i++) n += atomic_load(&t->res[i].state) == RLM_READY;
    return n;
}

/* ---- threads: what the threads of a ZTS process do ---- */

#define THREADS 8
#define PER_THREAD 20000
static const char *const names[] = {
    "10.0.0.1:6379",          "10.0.0.2:6379",          "10.0.0.3:6379", "10.0.0.4:6379", "10.0.0.5:6379",
    "unix:/run/redis/a.sock", "unix:/run/redis/b.sock", "[::1]:6379",    "node-9:7000",   "node-10:7000"};
#define NAMES (int)(sizeof(names) / sizeof(names[0]))

typedef struct worker {
    rlm_table *t;
    int id;
    pthread_barrier_t *go;
    int slot[NAMES];
} worker;

static void work(worker *w)
{
    for (int k = 0; k < PER_THREAD; k++) {
        int n = (k + w->id) % NAMES;
        int s = rlm_node_claim(w->t, names[n]); /* every time: the lookup races the claims */
        if (k < NAMES) w->slot[n] = s;
        rlm_add(&w->t->counter[REDLOCK_M_ATTEMPTS], 1);
        rlm_add(&w->t->node[s].req[RLM_REQ_OK], 1);
        rlm_observe(&w->t->node[s].lat, &rlm_lat, (uint64_t)k);
        rlm_observe(&w->t->wait, &rlm_wait, (uint64_t)k * 10);
    }
}

static void *thread_main(void *arg)
{
    worker *w = arg;
    pthread_barrier_wait(w->go);
    work(w);
    return NULL;
}

static uint64_t sum_0_to(uint64_t n) { return n * (n - 1) / 2; } /* 0 + 1 + ... + (n - 1) */

static void test_threads_sum_exactly(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    pthread_t th[THREADS];
    worker w[THREADS];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.t = t, .id = i, .go = &go};
        CHECK_EQ(pthread_create(&th[i], NULL, thread_main, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);

    CHECK_EQ(atomic_load(&t->counter[REDLOCK_M_ATTEMPTS]), THREADS * PER_THREAD);
    CHECK_EQ(hist_count(&t->wait), THREADS * PER_THREAD);
    CHECK_EQ(atomic_load(&t->wait.sum_us), THREADS * sum_0_to(PER_THREAD) * 10);
    /* one slot per name, the same in every thread */
    CHECK_EQ(ready_slots(t), NAMES);
    uint64_t req = 0, lat = 0;
    for (int n = 0; n < NAMES; n++) {
        for (int i = 1; i < THREADS; i++) CHECK_EQ(w[i].slot[n], w[0].slot[n]);
        CHECK_STR(t->node[w[0].slot[n]].name, names[n]);
    }
    for (int s = 0; s <= RLM_NODE_SLOTS; s++) {
        req += atomic_load(&t->node[s].req[RLM_REQ_OK]);
        lat += hist_count(&t->node[s].lat);
    }
    CHECK_EQ(req, THREADS * PER_THREAD);
    CHECK_EQ(lat, THREADS * PER_THREAD);
    CHECK_EQ(atomic_load(&t->node[RLM_OTHER].req[RLM_REQ_OK]), 0);
    rlm_unmap(t);
}

/* ---- processes: what php-fpm's workers do (the table mapped before the fork) ---- */

#define PROCS 4
#define PER_PROC 50000

static void test_processes_sum_exactly(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    pid_t kids[PROCS];
    for (int i = 0; i < PROCS; i++) {
        kids[i] = fork();
        REQUIRE(kids[i] >= 0);
        if (kids[i] == 0) {
            worker w = {.t = t, .id = i};
            for (int k = 0; k < PER_PROC; k++) {
                int s = rlm_node_claim(t, names[(k + i) % NAMES]);
                rlm_add(&t->counter[REDLOCK_M_RELEASES], 1);
                rlm_add(&t->node[s].req[RLM_REQ_TIMEOUT], 1);
                rlm_observe(&t->hold, &rlm_hold, 1000);
            }
            (void)w;
            _exit(0);
        }
    }
    for (int i = 0; i < PROCS; i++) {
        int st;
        CHECK_EQ(waitpid(kids[i], &st, 0), kids[i]);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    CHECK_EQ(atomic_load(&t->counter[REDLOCK_M_RELEASES]), PROCS * PER_PROC);
    CHECK_EQ(hist_count(&t->hold), PROCS * PER_PROC);
    CHECK_EQ(atomic_load(&t->hold.sum_us), (uint64_t)PROCS * PER_PROC * 1000);
    CHECK_EQ(ready_slots(t), NAMES);
    uint64_t req = 0;
    for (int s = 0; s <= RLM_NODE_SLOTS; s++) req += atomic_load(&t->node[s].req[RLM_REQ_TIMEOUT]);
    CHECK_EQ(req, PROCS * PER_PROC);
    rlm_unmap(t);
}

/* ---- a worker SIGKILLed at any point ---- */

/* A claim left half-done by a process that died is taken over at once. */
static void test_dead_claimer_slot_taken_over(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    pid_t kid = fork();
    REQUIRE(kid >= 0);
    if (kid == 0) _exit(0);
    int st;
    waitpid(kid, &st, 0); /* gone: its pid names no process */
    atomic_store(&t->node[0].state, RLM_CLAIMING | (uint32_t)kid);
    memcpy(t->node[0].name, "half-writ", 9);
    uint64_t t0 = now_us();
    CHECK_EQ(rlm_node_claim(t, "10.0.0.1:6379"), 0);
    CHECK(now_us() - t0 < 5000);
    CHECK_EQ(atomic_load(&t->node[0].state), RLM_READY);
    CHECK_STR(t->node[0].name, "10.0.0.1:6379");
    CHECK_EQ(rlm_node_claim(t, "10.0.0.1:6379"), 0);
    rlm_unmap(t);
}

/* One whose claimer lives (stopped, or a reused pid) is waited for a bounded time, then skipped. */
static void test_live_stuck_claimer_skipped(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    pid_t kid = fork();
    REQUIRE(kid >= 0);
    if (kid == 0) {
        pause();
        _exit(0);
    }
    atomic_store(&t->node[0].state, RLM_CLAIMING | (uint32_t)kid);
    uint64_t t0 = now_us();
    CHECK_EQ(rlm_node_claim(t, "a:1"), 1);
    uint64_t took = now_us() - t0;
    CHECK(took >= RLM_CLAIM_WAIT_US / 2);
    CHECK(took < 2000000); /* bounded (generous: sanitizer, a busy machine) */
    /* then it dies: the next claimer takes the slot over, and "a:1" stays where it is */
    kill(kid, SIGKILL);
    int st;
    waitpid(kid, &st, 0);
    CHECK_EQ(rlm_node_claim(t, "b:2"), 0);
    CHECK_EQ(rlm_node_claim(t, "a:1"), 1);
    CHECK_EQ(ready_slots(t), 2);
    rlm_unmap(t);
}

/* A claim left stuck by a stopped worker (SIGSTOP between its CAS and READY; a live
 * process with the claimer's pid alike) costs one wait, once: every later lock() of a
 * prefix whose probe passes the slot (each lock() asks rlm_res_claim for its prefix's slot)
 * and every new connection's node slot are a lookup again, not another wait. Bound: 20
 * later lookups together take less than the one wait measured here, on this machine. */
static void test_stopped_claimer_costs_one_wait(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    rlm_prefix p = rlm_prefix_of("stuck", 5);
    int at = (int)(p.hash % RLM_RES_SLOTS);
    pid_t kid = fork();
    REQUIRE(kid >= 0);
    if (kid == 0) {
        atomic_store(&t->res[at].state, RLM_CLAIMING | (uint32_t)getpid());
        atomic_store(&t->node[0].state, RLM_CLAIMING | (uint32_t)getpid());
        raise(SIGSTOP);
        _exit(0);
    }
    int st;
    REQUIRE(waitpid(kid, &st, WUNTRACED) == kid && WIFSTOPPED(st));
    uint64_t t0 = now_us();
    int s = rlm_res_claim(t, "stuck:1", 7);
    uint64_t first = now_us() - t0;
    CHECK_EQ(s, (at + 1) % RLM_RES_SLOTS);
    CHECK(first >= RLM_CLAIM_WAIT_US / 2); /* it waited for the claimer, once */
    t0 = now_us();
    for (int i = 0; i < 20; i++) CHECK_EQ(rlm_res_claim(t, "stuck:2", 7), s);
    uint64_t later = now_us() - t0;
    CHECK(later < first);
    if (later >= first)
        printf("    20 lookups: %llu us, the first wait: %llu us\n", (unsigned long long)later,
               (unsigned long long)first);
    /* node slots alike: the first new connection waits, the next ones do not */
    t0 = now_us();
    CHECK_EQ(rlm_node_claim(t, "n:1"), 1);
    first = now_us() - t0;
    CHECK(first >= RLM_CLAIM_WAIT_US / 2);
    char name[16];
    t0 = now_us();
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof(name), "n:%d", i + 2);
        CHECK_EQ(rlm_node_claim(t, name), i + 2);
    }
    CHECK(now_us() - t0 < first);
    /* the claimer dies: its slot is taken over by the next prefix that probes it first */
    kill(kid, SIGKILL);
    waitpid(kid, &st, 0);
    char r[32];
    int len = 0;
    for (int i = 0; i < 100000; i++) {
        len = snprintf(r, sizeof(r), "y%d", i);
        if ((int)(rlm_prefix_of(r, (size_t)len).hash % RLM_RES_SLOTS) == at) break;
    }
    CHECK_EQ(rlm_res_claim(t, r, (size_t)len), at);
    CHECK_EQ(rlm_res_claim(t, "stuck:3", 7), s);
    CHECK_EQ(rlm_node_claim(t, "n:0"), 0);
    rlm_unmap(t);
}

/* A damaged table (any process sharing it can write it): a prefix slot whose length runs
 * past its name and past the table, a node name without its NUL, state words no claimer
 * writes. metrics() reads each name within its slot and builds every label in its fixed
 * buffer; a claimer skips the damaged words at once and leaves them as they are. The table
 * is on the heap here: the AddressSanitizer build of table_test.sh sees a read past it. */
static void test_damaged_slots_read_within_bounds(void)
{
    rlm_table *t = aligned_alloc(64, sizeof(rlm_table));
    REQUIRE(t);
    memset(t, 0, sizeof(*t));
    int a = rlm_res_claim(t, "fine:1", 6);
    REQUIRE(a != RLM_RES_SLOTS - 1);
    rlm_add(&t->res[a].c[RLM_RES_ACQ], 1);
    rlm_res *r = &t->res[RLM_RES_SLOTS - 1];
    memset(r->name, 0xff, sizeof(r->name));
    r->len = 1000;
    rlm_add(&r->c[RLM_RES_ACQ], 7);
    atomic_store(&r->state, RLM_READY);
    rlm_node *nd = &t->node[3];
    memset(nd->name, 0xff, sizeof(nd->name));
    rlm_add(&nd->req[RLM_REQ_OK], 9);
    atomic_store(&nd->state, RLM_READY);
    const uint64_t odd[3] = {(uint64_t)9 << 32 | 5, RLM_CLAIMING, RLM_CLAIMING | 0xfffffff0u};
    for (int i = 0; i < 3; i++) atomic_store(&t->node[i].state, odd[i]);
    CHECK_EQ(rlm_node_claim(t, "n:1"), 4);
    for (int i = 0; i < 3; i++) CHECK_EQ(atomic_load(&t->node[i].state), odd[i]);

    size_t len;
    char *s = rlm_render(t, 1, &len);
    REQUIRE(s);
    CHECK_EQ(strlen(s), len);
    char want[512];
    int n = snprintf(want, sizeof(want), "redlock_resource_acquisitions_total{resource=\"");
    for (int i = 0; i < RLM_PREFIX_LEN; i++) n += snprintf(want + n, sizeof(want) - (size_t)n, "%%FF");
    snprintf(want + n, sizeof(want) - (size_t)n, "\"} 7\n");
    CHECK(strstr(s, want) != NULL);
    CHECK(strstr(s, "redlock_resource_acquisitions_total{resource=\"fine\"} 1\n") != NULL);
    n = snprintf(want, sizeof(want), "redlock_node_requests_total{node=\"");
    for (int i = 0; i < RLM_NAME_LEN - 1; i++) n += snprintf(want + n, sizeof(want) - (size_t)n, "\xef\xbf\xbd");
    snprintf(want + n, sizeof(want) - (size_t)n, "\",result=\"ok\"} 9\n");
    CHECK(strstr(s, want) != NULL);
    free(s);
    free(t);
}

/* A process killed in the middle of its updates: every counter is added or
 * not, a histogram's count is its buckets, and the others go on. */
static void test_killed_mid_updates(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    pid_t kid = fork();
    REQUIRE(kid >= 0);
    if (kid == 0) {
        for (uint64_t k = 0;; k++) {
            int s = rlm_node_claim(t, names[k % NAMES]);
            rlm_observe(&t->wait, &rlm_wait, 7);
            rlm_add(&t->counter[REDLOCK_M_ACQ_EXCLUSIVE], 1);
            rlm_add(&t->node[s].req[RLM_REQ_OK], 1);
        }
    }
    /* until it is well into its loop (bounded) */
    for (int i = 0; i < 2000 && atomic_load(&t->counter[REDLOCK_M_ACQ_EXCLUSIVE]) < 10000; i++) usleep(1000);
    kill(kid, SIGKILL);
    int st;
    waitpid(kid, &st, 0);
    CHECK(WIFSIGNALED(st));
    uint64_t acq = atomic_load(&t->counter[REDLOCK_M_ACQ_EXCLUSIVE]);
    CHECK(acq >= 10000);
    uint64_t n = hist_count(&t->wait);
    CHECK(n == acq || n == acq + 1); /* killed between the observation and the add */
    CHECK_EQ(ready_slots(t), NAMES);
    for (int i = NAMES; i < RLM_NODE_SLOTS; i++) CHECK_EQ(atomic_load(&t->node[i].state), RLM_FREE);
    /* the table goes on */
    for (int i = 0; i < 100; i++) rlm_add(&t->counter[REDLOCK_M_ACQ_EXCLUSIVE], 1);
    CHECK_EQ(atomic_load(&t->counter[REDLOCK_M_ACQ_EXCLUSIVE]), acq + 100);
    CHECK_EQ(rlm_node_claim(t, "new:1"), NAMES);
    rlm_unmap(t);
}

/* ---- the table of a user's workers (rlm_map_user) ---- */

static int file_exists(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static void touch_in(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    int fd = open(p, O_WRONLY | O_CREAT, 0600);
    if (fd >= 0) close(fd);
}

/* Two workers of one master and user (forked from it, as php-fpm's are) map one table;
 * the file and its directory are the user's alone; the first worker of a new master
 * removes the files of masters that are gone and of this one before it exec()ed, and
 * leaves live masters' and names of another form; a directory that is not the user's
 * alone is not used. */
static void test_user_table_file(void)
{
    char base[] = "/tmp/rlm-users.XXXXXX";
    REQUIRE(mkdtemp(base));
    uid_t me = geteuid();
    pid_t master = getpid();
    char why[320] = "", dir[512];
    snprintf(dir, sizeof(dir), "%s/redlock-metrics.%u", base, (unsigned)me);
    rlm_table *t = rlm_map_user(base, me, master, 0x1234, why, sizeof(why));
    REQUIRE(t);
    struct stat st;
    CHECK(stat(dir, &st) == 0 && st.st_uid == me && (st.st_mode & 0777) == 0700);
    char name[64], path[600];
    rlm_file_name(name, sizeof(name), master, 0x1234);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    CHECK(stat(path, &st) == 0 && st.st_uid == me && (st.st_mode & 0777) == 0600 && st.st_size == sizeof(rlm_table));
    pid_t kid = fork();
    REQUIRE(kid >= 0);
    if (kid == 0) {
        char w[320];
        rlm_table *c = rlm_map_user(base, me, master, 0x1234, w, sizeof(w));
        if (!c) _exit(3);
        rlm_add(&c->counter[REDLOCK_M_ACQ_EXCLUSIVE], 5);
        rlm_add(&c->res[rlm_res_claim(c, "sibling:1", 9)].c[RLM_RES_ACQ], 1);
        _exit(0);
    }
    int wst;
    CHECK_EQ(waitpid(kid, &wst, 0), kid);
    CHECK(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
    CHECK_EQ(atomic_load(&t->counter[REDLOCK_M_ACQ_EXCLUSIVE]), 5);
    CHECK_EQ(ready_res(t), 1);
    rlm_unmap(t);

    /* stale files: a master gone, this master before an exec; kept: a live master's, another form */
    kid = fork();
    REQUIRE(kid >= 0);
    if (kid == 0) _exit(0);
    waitpid(kid, &wst, 0);
    char gone[64], live[64];
    rlm_file_name(gone, sizeof(gone), kid, 7);
    rlm_file_name(live, sizeof(live), getppid(), 7);
    touch_in(dir, gone);
    touch_in(dir, live);
    touch_in(dir, "notes.txt");
    t = rlm_map_user(base, me, master, 0x5678, why, sizeof(why));
    REQUIRE(t);
    CHECK_EQ(atomic_load(&t->counter[REDLOCK_M_ACQ_EXCLUSIVE]), 0); /* a new master's table starts at 0 */
    CHECK(!file_exists(dir, gone));
    CHECK(!file_exists(dir, name));
    CHECK(file_exists(dir, live));
    CHECK(file_exists(dir, "notes.txt"));
    char mine[64];
    rlm_file_name(mine, sizeof(mine), master, 0x5678);
    CHECK(file_exists(dir, mine));
    rlm_unmap(t);

    /* a directory others can enter is not used */
    CHECK(chmod(dir, 0755) == 0);
    CHECK(rlm_map_user(base, me, master, 0x5678, why, sizeof(why)) == NULL);
    CHECK(strstr(why, "not this user's alone") != NULL);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    CHECK(system(cmd) == 0);
}

/* ---- the "other" slot and the exposition ---- */

static void test_full_table_other(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    char name[32];
    for (int i = 0; i < RLM_NODE_SLOTS; i++) {
        snprintf(name, sizeof(name), "10.1.0.%d:6379", i);
        CHECK_EQ(rlm_node_claim(t, name), i);
    }
    CHECK_EQ(rlm_node_claim(t, "10.2.0.1:6379"), RLM_OTHER);
    CHECK_EQ(rlm_node_claim(t, "10.1.0.7:6379"), 7);
    size_t len;
    char *s = rlm_render(t, 1, &len);
    REQUIRE(s);
    CHECK(!strstr(s, "{node=\"other\"")); /* not before a node went there */
    free(s);
    rlm_add(&t->node[RLM_OTHER].req[RLM_REQ_ERROR], 3);
    s = rlm_render(t, 1, &len);
    REQUIRE(s);
    CHECK(strstr(s, "redlock_node_requests_total{node=\"other\",result=\"error\"} 3\n") != NULL);
    CHECK(strstr(s, "redlock_metrics_node_slots 64\n") != NULL);
    CHECK_EQ(strlen(s), len);
    free(s);
    rlm_unmap(t);
}

static void test_render_escapes_and_merges(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    int a = rlm_node_claim(t, "unix:/tmp/a\"b\\c\nd\xff.sock");
    rlm_add(&t->node[a].req[RLM_REQ_OK], 2);
    /* two slots of one name (a claimer skipped a stuck slot that later got the same name): one series */
    int b = rlm_node_claim(t, "h:1");
    atomic_store(&t->node[b + 1].state, RLM_CLAIMING | 1u);
    snprintf(t->node[b + 1].name, RLM_NAME_LEN, "h:1");
    atomic_store(&t->node[b + 1].state, RLM_READY);
    rlm_add(&t->node[b].req[RLM_REQ_OK], 5);
    rlm_add(&t->node[b + 1].req[RLM_REQ_OK], 6);
    rlm_observe(&t->node[b].lat, &rlm_lat, 75);
    rlm_observe(&t->node[b + 1].lat, &rlm_lat, 75);
    size_t len;
    char *s = rlm_render(t, 0, &len);
    REQUIRE(s);
    CHECK(strstr(s, "{node=\"unix:/tmp/a\\\"b\\\\c\\nd\xef\xbf\xbd.sock\",result=\"ok\"} 2\n") != NULL);
    CHECK(strstr(s, "redlock_node_requests_total{node=\"h:1\",result=\"ok\"} 11\n") != NULL);
    const char *first = strstr(s, "{node=\"h:1\",result=\"ok\"}");
    CHECK(first && !strstr(first + 1, "{node=\"h:1\",result=\"ok\"}"));
    CHECK(strstr(s, "redlock_node_latency_seconds_bucket{node=\"h:1\",le=\"0.00005\"} 0\n") != NULL);
    CHECK(strstr(s, "redlock_node_latency_seconds_bucket{node=\"h:1\",le=\"0.0001\"} 2\n") != NULL);
    CHECK(strstr(s, "redlock_node_latency_seconds_bucket{node=\"h:1\",le=\"+Inf\"} 2\n") != NULL);
    CHECK(strstr(s, "redlock_node_latency_seconds_sum{node=\"h:1\"} 0.00015\n") != NULL);
    CHECK(strstr(s, "redlock_node_latency_seconds_count{node=\"h:1\"} 2\n") != NULL);
    CHECK(strstr(s, "redlock_metrics_shared 0\n") != NULL);
    free(s);
    rlm_unmap(t);
}

/* ---- resource prefixes ---- */

/* resources of 10 prefixes, claimed by every thread at once: one slot per prefix, counts exact */
#define RES_PREFIXES 10 /* (divides PER_THREAD) */
typedef struct res_worker {
    rlm_table *t;
    int id;
    pthread_barrier_t *go;
    int slot[RES_PREFIXES];
} res_worker;

static void *res_thread(void *arg)
{
    res_worker *w = arg;
    char r[64];
    pthread_barrier_wait(w->go);
    for (int k = 0; k < PER_THREAD; k++) {
        int p = (k + w->id) % RES_PREFIXES;
        int len = snprintf(r, sizeof(r), "pre%d:%d:%d", p, w->id, k);
        int s = rlm_res_claim(w->t, r, (size_t)len);
        if (k < RES_PREFIXES) w->slot[p] = s;
        rlm_add(&w->t->res[s].c[RLM_RES_ACQ], 1);
        rlm_add(&w->t->res[s].hold_us, 3);
    }
    return NULL;
}

static void test_resource_threads_one_slot_each(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    pthread_t th[THREADS];
    res_worker w[THREADS];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, THREADS);
    for (int i = 0; i < THREADS; i++) {
        w[i] = (res_worker){.t = t, .id = i, .go = &go};
        CHECK_EQ(pthread_create(&th[i], NULL, res_thread, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    CHECK_EQ(ready_res(t), RES_PREFIXES);
    uint64_t acq = 0, hold = 0;
    for (int p = 0; p < RES_PREFIXES; p++) {
        char name[16];
        int len = snprintf(name, sizeof(name), "pre%d", p);
        for (int i = 1; i < THREADS; i++) CHECK_EQ(w[i].slot[p], w[0].slot[p]);
        const rlm_res *s = &t->res[w[0].slot[p]];
        CHECK_EQ(s->len, (uint32_t)len);
        CHECK(memcmp(s->name, name, (size_t)len) == 0);
        CHECK_EQ(atomic_load(&s->c[RLM_RES_ACQ]), THREADS * PER_THREAD / RES_PREFIXES);
    }
    for (int i = 0; i <= RLM_RES_SLOTS; i++) {
        acq += atomic_load(&t->res[i].c[RLM_RES_ACQ]);
        hold += atomic_load(&t->res[i].hold_us);
    }
    CHECK_EQ(acq, THREADS * PER_THREAD);
    CHECK_EQ(hold, 3u * THREADS * PER_THREAD);
    CHECK_EQ(atomic_load(&t->res[RLM_RES_OTHER].c[RLM_RES_ACQ]), 0);
    rlm_unmap(t);
}

/* the prefix rule, the probe past taken slots, "other" when full or too long */
static void test_resource_prefix_probe_other(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    int a = rlm_res_claim(t, "orders:1", 8);
    CHECK_EQ(rlm_res_claim(t, "orders:2:x", 10), a);
    CHECK_EQ(rlm_res_claim(t, "orders", 6), a); /* no ':' : the whole resource */
    CHECK(rlm_res_claim(t, "orders-2", 8) != a);
    int e = rlm_res_claim(t, ":x", 2); /* the empty prefix */
    CHECK_EQ(t->res[e].len, 0u);
    int b = rlm_res_claim(t, "a\0b:1", 5); /* bytes, not C strings */
    CHECK(b != rlm_res_claim(t, "a\0c:1", 5));
    /* a prefix whose hashed slot another took: the next free one, found again later */
    rlm_prefix p = rlm_prefix_of("orders", 6);
    CHECK_EQ(a, (int)(p.hash % RLM_RES_SLOTS));
    char r[96];
    int same = -1;
    for (int i = 0; i < 100000 && same < 0; i++) {
        int len = snprintf(r, sizeof(r), "x%d", i);
        rlm_prefix q = rlm_prefix_of(r, (size_t)len);
        if ((int)(q.hash % RLM_RES_SLOTS) == a) same = len;
    }
    REQUIRE(same > 0);
    int c = rlm_res_claim(t, r, (size_t)same);
    CHECK(c != a && c != RLM_RES_OTHER);
    CHECK_EQ(rlm_res_claim(t, r, (size_t)same), c);
    /* 64 bytes fit, 65 do not */
    memset(r, 'p', sizeof(r));
    CHECK(rlm_res_claim(t, r, RLM_PREFIX_LEN) != RLM_RES_OTHER);
    CHECK_EQ(rlm_res_claim(t, r, RLM_PREFIX_LEN + 1), RLM_RES_OTHER);
    /* full: every new prefix in "other", the old ones where they are */
    for (int i = 0; ready_res(t) < RLM_RES_SLOTS; i++) {
        int len = snprintf(r, sizeof(r), "fill%d", i);
        CHECK(rlm_res_claim(t, r, (size_t)len) != RLM_RES_OTHER);
    }
    CHECK_EQ(rlm_res_claim(t, "new:1", 5), RLM_RES_OTHER);
    CHECK_EQ(rlm_res_claim(t, "orders:9", 8), a);
    CHECK_EQ(rlm_res_claim(t, ":y", 2), e);
    rlm_unmap(t);
}

/* a resource slot left CLAIMING by a SIGKILLed process is taken over (the nodes' rule) */
static void test_resource_dead_claimer(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    pid_t kid = fork();
    REQUIRE(kid >= 0);
    if (kid == 0) _exit(0);
    int st;
    waitpid(kid, &st, 0);
    rlm_prefix p = rlm_prefix_of("jobs:1", 6);
    int at = (int)(p.hash % RLM_RES_SLOTS);
    atomic_store(&t->res[at].state, RLM_CLAIMING | (uint32_t)kid);
    uint64_t t0 = now_us();
    CHECK_EQ(rlm_res_claim(t, "jobs:1", 6), at);
    CHECK(now_us() - t0 < 5000);
    CHECK_EQ(atomic_load(&t->res[at].state), RLM_READY);
    CHECK_EQ(ready_res(t), 1);
    rlm_unmap(t);
}

/* the exposition: sorted, escaped one-to-one, slots of one prefix added up, "other" once used */
static void test_resource_render(void)
{
    rlm_table *t = rlm_map_shared();
    REQUIRE(t);
    static const struct {
        const char *res;
        size_t len;
        const char *label;
    } odd[] = {
        {"q\"b\\s:1", 7, "q\\\"b\\\\s"},     {"\xff:1", 3, "%FF"}, {"%FF:1", 5, "%25FF"}, {"nl\nx:1", 6, "nl%0Ax"},
        {"caf\xc3\xa9:1", 7, "caf\xc3\xa9"}, {"\xc3:1", 3, "%C3"},
    };
    char want[160];
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        int s = rlm_res_claim(t, odd[i].res, odd[i].len);
        rlm_add(&t->res[s].c[RLM_RES_ACQ], i + 1);
    }
    int b = rlm_res_claim(t, "dup:1", 5);
    atomic_store(&t->res[(b + 1) % RLM_RES_SLOTS].state, RLM_CLAIMING | 1u);
    res_write(&t->res[(b + 1) % RLM_RES_SLOTS], &(rlm_prefix){"dup", 3, rlm_hash("dup", 3)});
    atomic_store(&t->res[(b + 1) % RLM_RES_SLOTS].state, RLM_READY);
    rlm_add(&t->res[b].c[RLM_RES_RELEASE], 2);
    rlm_add(&t->res[(b + 1) % RLM_RES_SLOTS].c[RLM_RES_RELEASE], 3);
    rlm_add(&t->res[b].hold_us, 1500000);
    size_t len;
    char *s = rlm_render(t, 1, &len);
    REQUIRE(s);
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        snprintf(want, sizeof(want), "redlock_resource_acquisitions_total{resource=\"%s\"} %zu\n", odd[i].label, i + 1);
        CHECK(strstr(s, want) != NULL);
    }
    CHECK(strstr(s, "redlock_resource_releases_total{resource=\"dup\"} 5\n") != NULL);
    const char *first = strstr(s, "redlock_resource_releases_total{resource=\"dup\"}");
    CHECK(first && !strstr(first + 1, "redlock_resource_releases_total{resource=\"dup\"}"));
    CHECK(strstr(s, "redlock_resource_hold_seconds_total{resource=\"dup\"} 1.5\n") != NULL);
    CHECK(!strstr(s, "{resource=\"other\"}"));
    /* sorted by prefix: "%FF" (as bytes "%FF") before "caf..." before "dup" */
    CHECK(strstr(s, "acquisitions_total{resource=\"%25FF\"}") < strstr(s, "acquisitions_total{resource=\"caf"));
    CHECK(strstr(s, "redlock_metrics_resource_slots 8\n") != NULL);
    free(s);
    rlm_add(&t->res[RLM_RES_OTHER].c[RLM_RES_CONFLICT], 4);
    s = rlm_render(t, 1, &len);
    REQUIRE(s);
    CHECK(strstr(s, "redlock_resource_conflicts_total{resource=\"other\"} 4\n") != NULL);
    free(s);
    rlm_unmap(t);
}

/* ---- the bucket of an observation ---- */

static int linear_bucket(const rlm_bounds *b, uint64_t us)
{
    int i = 0;
    while (i < b->n && us > b->le_us[i]) i++;
    return i;
}

static int observed_bucket(const rlm_bounds *b, uint64_t us)
{
    rlm_hist h;
    memset(&h, 0, sizeof(h));
    rlm_observe(&h, b, us);
    for (int i = 0; i < RLM_HIST_MAX; i++)
        if (atomic_load(&h.bucket[i])) return i;
    return -1;
}

static void test_bucket_of_every_value(void)
{
    const rlm_bounds *all[] = {&rlm_lat, &rlm_wait, &rlm_hold};
    for (int a = 0; a < 3; a++) {
        const rlm_bounds *b = all[a];
        /* every bound and its neighbours, every power of two and its neighbours, the extremes */
        for (int i = 0; i < b->n; i++)
            for (int d = -1; d <= 1; d++)
                CHECK_EQ(observed_bucket(b, b->le_us[i] + d), linear_bucket(b, b->le_us[i] + d));
        for (int k = 0; k < 64; k++) {
            uint64_t p = (uint64_t)1 << k;
            CHECK_EQ(observed_bucket(b, p), linear_bucket(b, p));
            CHECK_EQ(observed_bucket(b, p - 1), linear_bucket(b, p - 1));
            CHECK_EQ(observed_bucket(b, p + 1), linear_bucket(b, p + 1));
        }
        CHECK_EQ(observed_bucket(b, UINT64_MAX), b->n);
        uint64_t x = 88172645463325252ull; /* xorshift: values across the range */
        for (int i = 0; i < 100000; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint64_t v = x >> (x & 63);
            CHECK_EQ(observed_bucket(b, v), linear_bucket(b, v));
        }
    }
}

static const test_case tests[] = {
    {"bucket_of_every_value", test_bucket_of_every_value},
    {"threads_sum_exactly", test_threads_sum_exactly},
    {"processes_sum_exactly", test_processes_sum_exactly},
    {"dead_claimer_slot_taken_over", test_dead_claimer_slot_taken_over},
    {"live_stuck_claimer_skipped", test_live_stuck_claimer_skipped},
    {"killed_mid_updates", test_killed_mid_updates},
    {"stopped_claimer_costs_one_wait", test_stopped_claimer_costs_one_wait},
    {"damaged_slots_read_within_bounds", test_damaged_slots_read_within_bounds},
    {"user_table_file", test_user_table_file},
    {"full_table_other", test_full_table_other},
    {"render_escapes_and_merges", test_render_escapes_and_merges},
    {"resource_threads_one_slot_each", test_resource_threads_one_slot_each},
    {"resource_prefix_probe_other", test_resource_prefix_probe_other},
    {"resource_dead_claimer", test_resource_dead_claimer},
    {"resource_render", test_resource_render},
};

int main(int argc, char **argv)
{
    rlm_bounds_init(); /* as MINIT does */
    test_counts c = run_tests(tests, N_TESTS(tests), argc, argv, "metrics-table ", NULL);
    printf("metrics-table: %d passed, %d failed, 0 skipped\n", c.passed, c.failed);
    return c.failed ? 1 : 0;
}
