/* watchdog_tests.c -- the auto_extend watchdog (lock/rl_watchdog.c, rl_watch.c) against real redis-server nodes,
 * built with -fsanitize=thread: held past its TTL, loss, max_hold, stop, fork, 200 locks, readers.
 *
 * Usage: watchdog_tests [substring]   runs the tests whose name contains it.
 * The nodes are started here through tests/nodes.sh `run` (REDLOCK_NODES_SH), stopped by pid. */
#define _GNU_SOURCE
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/ports.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* getaddrinfo() as the core calls it (linked with -Wl,--wrap=getaddrinfo):
 * counted per thread, and, for the watchdog thread, as slow as a resolver
 * that does not answer (g_slow_ms), to see that nothing waits on it. */
int __real_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res);
int __wrap_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res);
static pthread_t g_main_thread;
static _Atomic int g_gai_main, g_gai_other, g_slow_ms;
int __wrap_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res)
{
    if (pthread_equal(pthread_self(), g_main_thread)) {
        g_gai_main++;
    } else {
        g_gai_other++;
        if (g_slow_ms) usleep((useconds_t)g_slow_ms * 1000u);
    }
    return __real_getaddrinfo(node, service, hints, res);
}

/* The fork test starts a watchdog thread in a child of a threaded process:
 * ThreadSanitizer refuses that by default. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) { return "die_after_fork=0"; }

#define NNODES 5
/* Every time in these tests is scaled by S: the watchdog's extensions (a
 * thread) and the nodes' replies must keep up with TTLs of a few hundred ms
 * on a loaded machine (the test command's lanes share 2 cores; ThreadSanitizer
 * slows every access). At 1x, a 300 ms TTL and 100 ms node timeouts lost
 * the lock under a load average of 19 (watchdog_held_past_ttl: LOST). */
#define S(ms) ((ms) * 3)
#define TIMEOUT_MS S(100)

static struct {
    int port;
    pid_t pid;
    int paused;
} g_node[NNODES];
static char g_dir[64];

static uint64_t mono_ms(void) { return rl_clock_monotonic.now_us(NULL) / 1000u; }
static void msleep(int ms) { rl_clock_monotonic.sleep_us(NULL, (uint64_t)ms * 1000u); }

/* ---- nodes ---- */

static redisContext *admin_connect(int i) { return loopback_connect(g_node[i].port); }

/* the value of key on node i: 1 when it equals want, 0 when not, -1 unreachable */
static int admin_has(int i, const char *key, const char *want)
{
    redisContext *c = admin_connect(i);
    if (!c) return -1;
    redisReply *r = redisCommand(c, "GET %s", key);
    int v = r && r->type == REDIS_REPLY_STRING && strcmp(r->str, want) == 0;
    if (!r) v = -1;
    if (r) freeReplyObject(r);
    redisFree(c);
    return v;
}

/* EVALSHA calls node i has served (INFO commandstats) */
static long long evalsha_calls(int i)
{
    redisContext *c = admin_connect(i);
    long long v = -1;
    if (!c) return v;
    redisReply *r = redisCommand(c, "INFO commandstats");
    if (r && r->type == REDIS_REPLY_STRING) {
        const char *p = strstr(r->str, "cmdstat_evalsha:calls=");
        v = p ? atoll(p + 22) : 0;
    }
    if (r) freeReplyObject(r);
    redisFree(c);
    return v;
}

static long long evalsha_total(void)
{
    long long s = 0;
    for (int i = 0; i < NNODES; i++) s += evalsha_calls(i);
    return s;
}

/* a counter of node i's INFO (e.g. "total_connections_received"), -1 unreachable */
static long long info_field(int i, const char *field)
{
    redisContext *c = admin_connect(i);
    long long v = -1;
    if (!c) return v;
    redisReply *r = redisCommand(c, "INFO");
    char pat[64];
    snprintf(pat, sizeof(pat), "\n%s:", field);
    if (r && r->type == REDIS_REPLY_STRING) {
        const char *p = strstr(r->str, pat);
        v = p ? atoll(p + strlen(pat)) : -1;
    }
    if (r) freeReplyObject(r);
    redisFree(c);
    return v;
}

static int node_ping(int i)
{
    redisContext *c = admin_connect(i);
    if (!c) return 0;
    redisReply *r = redisCommand(c, "PING");
    int ok = r && r->type == REDIS_REPLY_STATUS && strcmp(r->str, "PONG") == 0;
    if (r) freeReplyObject(r);
    redisFree(c);
    return ok;
}

static void nodes_stop(void)
{
    for (int i = 0; i < NNODES; i++) {
        if (g_node[i].pid <= 0) continue;
        kill(g_node[i].pid, SIGCONT);
        kill(g_node[i].pid, SIGKILL);
        waitpid(g_node[i].pid, NULL, 0);
        g_node[i].pid = 0;
    }
    if (g_dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
        if (system(cmd) != 0) {}
        g_dir[0] = '\0';
    }
}

static int nodes_start(void)
{
    const char *nodes_sh = getenv("REDLOCK_NODES_SH") ? getenv("REDLOCK_NODES_SH") : "../tests/nodes.sh";
    snprintf(g_dir, sizeof(g_dir), "/tmp/rl-wd.XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    atexit(nodes_stop);
    for (int i = 0; i < NNODES; i++) {
        int up = 0;
        for (int attempt = 0; attempt < 5 && !up; attempt++) {
            char port[16], name[16];
            g_node[i].port = free_port();
            snprintf(port, sizeof(port), "%d", g_node[i].port);
            snprintf(name, sizeof(name), "node%d", i);
            pid_t parent = getpid();
            g_node[i].pid = fork();
            if (g_node[i].pid == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent) _exit(126);
                int nul = open("/dev/null", O_RDWR);
                if (nul >= 0) {
                    dup2(nul, 0);
                    dup2(nul, 1);
                    dup2(nul, 2);
                }
                execlp("bash", "bash", nodes_sh, "run", port, g_dir, name, (char *)NULL);
                _exit(127);
            }
            for (int k = 0; k < 100 && !up; k++) {
                msleep(20);
                up = node_ping(i);
            }
            if (!up && g_node[i].pid > 0) {
                kill(g_node[i].pid, SIGKILL);
                waitpid(g_node[i].pid, NULL, 0);
                g_node[i].pid = 0;
            }
        }
        if (!up) return -1;
    }
    return 0;
}

static void node_pause(int i)
{
    if (kill(g_node[i].pid, SIGSTOP) == 0) g_node[i].paused = 1;
}
static void node_resume(int i)
{
    kill(g_node[i].pid, SIGCONT);
    g_node[i].paused = 0;
}

/* ---- a client over the nodes: its own connections, like the PHP thread's ---- */

typedef struct client {
    rl_node_conf confs[NNODES];
    rl_conn *conns[NNODES];
    rl_net net;
    rl_transport tp;
    rl_ctx ctx;
} client;

/* host: how the nodes are named ("127.0.0.1", or a name such as "localhost") */
static int client_open_host(client *c, const char *host)
{
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < NNODES; i++) {
        char uri[96], err[128];
        snprintf(uri, sizeof(uri), "redis://%s:%d", host, g_node[i].port);
        if (rl_uri_parse(uri, strlen(uri), &c->confs[i], err, sizeof(err)) != 0) return -1;
        c->confs[i].connect_timeout_ms = TIMEOUT_MS;
        c->confs[i].timeout_ms = TIMEOUT_MS;
        c->conns[i] = rl_conn_new(&c->confs[i]);
        if (!c->conns[i]) return -1;
    }
    c->net = (rl_net){.conns = c->conns, .n = NNODES, .clock = &rl_clock_monotonic};
    c->tp = (rl_transport){.fanout = rl_net_fanout, .ctx = &c->net};
    c->ctx = (rl_ctx){.tp = &c->tp, .clock = &rl_clock_monotonic, .rnd = &rl_random_system, .n = NNODES};
    return 0;
}

static int client_open(client *c) { return client_open_host(c, "127.0.0.1"); }

static void client_close(client *c)
{
    for (int i = 0; i < NNODES; i++) {
        rl_conn_free(c->conns[i]);
        rl_node_conf_free(&c->confs[i]);
    }
}

static const rl_opts one_try = {.drift_factor = 0.01};

static void make_key(char *buf, size_t len, const char *what)
{
    static int seq;
    snprintf(buf, len, "rltest:wd:%s:%d:%d", what, (int)getpid(), ++seq);
}

/* acquire key with ttl and watch it */
static rl_watch *acquire_watched(client *c, const char *key, int ttl, int64_t max_hold, rl_lock_info *info)
{
    if (rl_acquire(&c->ctx, key, strlen(key), ttl, &one_try, info, NULL) != RL_ACQUIRED) return NULL;
    rl_watch_spec spec = {.confs = c->confs,
                          .n = NNODES,
                          .key = key,
                          .keylen = strlen(key),
                          .token = info->token,
                          .ttl_ms = ttl,
                          .drift_factor = 0.01,
                          .max_hold_ms = max_hold};
    return rl_watch_start(&spec, info);
}

static int state_of(rl_watch *w)
{
    rl_watch_status st;
    rl_watch_status_get(w, &st);
    return st.state;
}

/* ---- tests ---- */

/* ttl 300 ms held through 1.5 s; a contender with its own connections fails all along */
static void test_held_past_ttl(void)
{
    client a, b;
    char key[96];
    rl_lock_info info, other;
    REQUIRE(client_open(&a) == 0 && client_open(&b) == 0);
    make_key(key, sizeof(key), "held");
    rl_watch *w = acquire_watched(&a, key, S(300), 0, &info);
    REQUIRE(w != NULL);
    int conflicts = 0, tries = 0;
    uint64_t end = mono_ms() + S(1500);
    while (mono_ms() < end) {
        msleep(S(100));
        tries++;
        conflicts += rl_acquire(&b.ctx, key, strlen(key), S(300), &one_try, &other, NULL) == RL_CONFLICT;
        CHECK(rl_watch_remaining_ms(w) > 0);
    }
    rl_watch_status st;
    rl_watch_status_get(w, &st);
    CHECK_EQ(st.state, RL_WATCH_ACTIVE);
    CHECK(st.extensions >= 3);
    CHECK_EQ(conflicts, tries);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(admin_has(i, key, info.token), 1);
    rl_watch_stop(w);
    CHECK_EQ(state_of(w), RL_WATCH_STOPPED);
    CHECK_OUT(rl_release(&a.ctx, key, strlen(key), info.token, NULL), RL_RELEASED);
    CHECK_OUT(rl_acquire(&b.ctx, key, strlen(key), S(300), &one_try, &other, NULL), RL_ACQUIRED);
    rl_release(&b.ctx, key, strlen(key), other.token, NULL);
    rl_watch_unref(w);
    client_close(&a);
    client_close(&b);
}

/* after stop no EVALSHA reaches any node */
static void test_no_extension_after_stop(void)
{
    client a;
    char key[96];
    rl_lock_info info;
    REQUIRE(client_open(&a) == 0);
    make_key(key, sizeof(key), "stop");
    rl_watch *w = acquire_watched(&a, key, S(150), 0, &info);
    REQUIRE(w != NULL);
    msleep(S(400)); /* a few extensions */
    rl_watch_status st;
    rl_watch_status_get(w, &st);
    CHECK(st.extensions >= 2);
    rl_watch_stop(w);
    msleep(S(30));
    long long before = evalsha_total();
    msleep(S(400)); /* would be ~8 extensions x 5 nodes */
    CHECK_EQ(evalsha_total(), before);
    rl_watch_status_get(w, &st);
    CHECK_EQ(st.state, RL_WATCH_STOPPED);
    rl_release(&a.ctx, key, strlen(key), info.token, NULL);
    rl_watch_unref(w);
    client_close(&a);
}

/* 3 of 5 nodes paused: the first failed extension marks the lock lost */
static void test_lost_three_paused(void)
{
    client a;
    char key[96];
    rl_lock_info info;
    REQUIRE(client_open(&a) == 0);
    make_key(key, sizeof(key), "lost");
    rl_watch *w = acquire_watched(&a, key, S(300), 0, &info);
    REQUIRE(w != NULL);
    for (int i = 0; i < 3; i++) node_pause(i);
    uint64_t t0 = mono_ms();
    while (state_of(w) == RL_WATCH_ACTIVE && mono_ms() - t0 < S(2000)) msleep(S(10));
    uint64_t took = mono_ms() - t0;
    rl_watch_status st;
    rl_watch_status_get(w, &st);
    CHECK_EQ(st.state, RL_WATCH_LOST);
    CHECK(took < S(300) + 2 * TIMEOUT_MS + S(100));
    CHECK_EQ(st.valid_until_us, 0);
    CHECK_EQ(rl_watch_remaining_ms(w), 0);
    CHECK(strstr(st.reason, "quorum") != NULL);
    char name[32];
    snprintf(name, sizeof(name), "127.0.0.1:%d", g_node[0].port);
    CHECK(strstr(st.reason, name) != NULL);
    if (strstr(st.reason, name) == NULL) printf("    reason: %s\n", st.reason);
    long long ext = (long long)st.extensions;
    for (int i = 0; i < 3; i++) node_resume(i);
    msleep(S(400));
    rl_watch_status_get(w, &st);
    CHECK_EQ(st.state, RL_WATCH_LOST); /* stays lost: no more extensions */
    CHECK_EQ((long long)st.extensions, ext);
    rl_watch_stop(w);
    CHECK_EQ(state_of(w), RL_WATCH_LOST);
    rl_release(&a.ctx, key, strlen(key), info.token, NULL);
    rl_watch_unref(w);
    client_close(&a);
}

/* max_hold ends the extensions; the lock then expires by its TTL */
static void test_max_hold(void)
{
    client a, b;
    char key[96];
    rl_lock_info info, other;
    REQUIRE(client_open(&a) == 0 && client_open(&b) == 0);
    make_key(key, sizeof(key), "maxhold");
    uint64_t t0 = mono_ms();
    rl_watch *w = acquire_watched(&a, key, S(300), S(700), &info);
    REQUIRE(w != NULL);
    while (state_of(w) == RL_WATCH_ACTIVE && mono_ms() - t0 < S(3000)) msleep(S(10));
    uint64_t stopped = mono_ms() - t0;
    CHECK_EQ(state_of(w), RL_WATCH_MAX_HOLD);
    CHECK(stopped >= S(700) && stopped < S(900));
    /* still held until its validity runs out, then free for others */
    CHECK(rl_watch_remaining_ms(w) > 0);
    CHECK_OUT(rl_acquire(&b.ctx, key, strlen(key), S(300), &one_try, &other, NULL), RL_CONFLICT);
    while (rl_watch_remaining_ms(w) > 0 && mono_ms() - t0 < S(3000)) msleep(S(10));
    uint64_t expired = mono_ms() - t0;
    CHECK(expired <= S(700) + S(300) + S(50));
    int got = 0;
    for (int k = 0; k < 30 && !got; k++) {
        got = rl_acquire(&b.ctx, key, strlen(key), S(300), &one_try, &other, NULL) == RL_ACQUIRED;
        if (!got) msleep(S(10));
    }
    CHECK(got);
    if (got) rl_release(&b.ctx, key, strlen(key), other.token, NULL);
    rl_watch_unref(w);
    client_close(&a);
    client_close(&b);
}

/* threads reading the state while the watchdog writes it (the PHP thread's view) */
static rl_watch *g_read_w;
static _Atomic int g_read_stop;
static void *reader(void *arg)
{
    long bad = 0;
    (void)arg;
    while (!g_read_stop) {
        rl_watch_status st;
        rl_watch_status_get(g_read_w, &st);
        int64_t ms = rl_watch_remaining_ms(g_read_w);
        if (st.state == RL_WATCH_ACTIVE && ms <= 0) bad += 1000;
        if (ms > S(300)) bad += 1;
        usleep(50);
    }
    return (void *)bad;
}

static void test_readers(void)
{
    client a;
    char key[96];
    rl_lock_info info;
    REQUIRE(client_open(&a) == 0);
    make_key(key, sizeof(key), "readers");
    g_read_w = acquire_watched(&a, key, S(300), 0, &info);
    REQUIRE(g_read_w != NULL);
    g_read_stop = 0;
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, reader, NULL);
    /* the caller's own extend in between, paused and resumed */
    for (int k = 0; k < 5; k++) {
        msleep(S(100));
        rl_lock_info cur;
        int st = rl_watch_pause(g_read_w, &cur);
        CHECK_EQ(st, RL_WATCH_ACTIVE);
        int r = rl_extend(&a.ctx, key, strlen(key), info.token, S(300), 0.01, &cur, NULL);
        CHECK_OUT(r, RL_EXTENDED);
        rl_watch_resume(g_read_w, r, S(300), &cur);
    }
    msleep(S(300));
    g_read_stop = 1;
    long bad = 0;
    for (int i = 0; i < 4; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        bad += (long)rv;
    }
    CHECK_EQ(bad, 0);
    rl_watch_status st;
    rl_watch_status_get(g_read_w, &st);
    CHECK_EQ(st.state, RL_WATCH_ACTIVE);
    if (st.state != RL_WATCH_ACTIVE) printf("    reason: %s\n", st.reason);
    rl_watch_stop(g_read_w);
    rl_release(&a.ctx, key, strlen(key), info.token, NULL);
    rl_watch_unref(g_read_w);
    client_close(&a);
}

/* fork: the child has no watchdog and does not extend the parent's lock;
 * it can watch a lock of its own; the parent goes on extending */
static void test_fork(void)
{
    client a;
    char key[96];
    rl_lock_info info;
    REQUIRE(client_open(&a) == 0);
    make_key(key, sizeof(key), "fork");
    rl_watch *w = acquire_watched(&a, key, S(300), 0, &info);
    REQUIRE(w != NULL);
    msleep(S(150));
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int code = 0, running = -1;
        if (state_of(w) != RL_WATCH_FORKED) code |= 1;
        if (rl_watchdog_active(&running) != 0 || running != 0) code |= 2;
        rl_watch_stop(w); /* a no-op here */
        if (state_of(w) != RL_WATCH_FORKED) code |= 4;
        /* (a child starting a watchdog of its own is tested in tests/watchdog/
         * fork_child.phpt: ThreadSanitizer cannot start threads in the child
         * of a threaded process) */
        rl_watch_unref(w);
        rl_watchdog_shutdown();
        msleep(S(400)); /* the parent's extensions go on meanwhile */
        _exit(code);
    }
    REQUIRE(pid > 0);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK_EQ(WEXITSTATUS(status), 0);
    rl_watch_status st;
    rl_watch_status_get(w, &st);
    CHECK_EQ(st.state, RL_WATCH_ACTIVE);
    CHECK(st.extensions >= 3);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(admin_has(i, key, info.token), 1);
    rl_watch_stop(w);
    rl_release(&a.ctx, key, strlen(key), info.token, NULL);
    rl_watch_unref(w);
    client_close(&a);
}

/* 200 locks at once on one node list: all held through several TTLs */
#define MANY 200
static void test_many(void)
{
    client a;
    static char keys[MANY][96];
    static rl_lock_info infos[MANY];
    static rl_watch *ws[MANY];
    REQUIRE(client_open(&a) == 0);
    int ok = 0;
    for (int i = 0; i < MANY; i++) {
        make_key(keys[i], sizeof(keys[i]), "many");
        ws[i] = acquire_watched(&a, keys[i], S(600), 0, &infos[i]);
        ok += ws[i] != NULL;
    }
    REQUIRE(ok == MANY);
    int running = 0;
    CHECK_EQ(rl_watchdog_active(&running), MANY);
    CHECK_EQ(running, 1);
    msleep(S(2000));
    int active = 0, valid = 0;
    uint64_t ext = 0;
    for (int i = 0; i < MANY; i++) {
        rl_watch_status st;
        rl_watch_status_get(ws[i], &st);
        active += st.state == RL_WATCH_ACTIVE;
        valid += rl_watch_remaining_ms(ws[i]) > 0;
        ext += st.extensions;
    }
    CHECK_EQ(active, MANY);
    CHECK_EQ(valid, MANY);
    CHECK(ext >= (uint64_t)MANY * 8);
    int held = 0;
    for (int i = 0; i < MANY; i += 20) held += admin_has(2, keys[i], infos[i].token) == 1;
    CHECK_EQ(held, MANY / 20);
    for (int i = 0; i < MANY; i++) {
        rl_watch_stop(ws[i]);
        rl_release(&a.ctx, keys[i], strlen(keys[i]), infos[i].token, NULL);
        rl_watch_unref(ws[i]);
    }
    CHECK_EQ(rl_watchdog_active(NULL), 0);
    client_close(&a);
}

/* shutdown: every watch stopped, the thread joined; handles still readable */
static void test_shutdown(void)
{
    client a;
    char key[96];
    rl_lock_info info;
    REQUIRE(client_open(&a) == 0);
    make_key(key, sizeof(key), "shutdown");
    rl_watch *w = acquire_watched(&a, key, S(300), 0, &info);
    REQUIRE(w != NULL);
    rl_watchdog_shutdown();
    int running = -1;
    CHECK_EQ(rl_watchdog_active(&running), 0);
    CHECK_EQ(running, 0);
    CHECK_EQ(state_of(w), RL_WATCH_STOPPED);
    long long before = evalsha_total();
    msleep(S(250));
    CHECK_EQ(evalsha_total(), before);
    rl_watch_unref(w);
    rl_release(&a.ctx, key, strlen(key), info.token, NULL);
    /* a new watch after shutdown starts a new thread */
    w = acquire_watched(&a, key, S(150), 0, &info);
    REQUIRE(w != NULL);
    msleep(S(200));
    rl_watch_status st;
    rl_watch_status_get(w, &st);
    CHECK(st.extensions >= 1);
    rl_watch_stop(w);
    rl_release(&a.ctx, key, strlen(key), info.token, NULL);
    rl_watch_unref(w);
    rl_watchdog_shutdown();
    client_close(&a);
}

/* 5 auto_extend locks one after the other on one node list: the watchdog
 * opens its connections once (one per node), not once per lock */
static void test_connections_reused(void)
{
    client a;
    char key[96];
    rl_lock_info info;
    REQUIRE(client_open(&a) == 0);
    rl_watchdog_shutdown(); /* no set kept from the tests before */
    make_key(key, sizeof(key), "reuse");
    CHECK_OUT(rl_acquire(&a.ctx, key, strlen(key), S(300), &one_try, &info, NULL), RL_ACQUIRED); /* our own, opened */
    rl_release(&a.ctx, key, strlen(key), info.token, NULL);
    long long before[NNODES];
    for (int i = 0; i < NNODES; i++) before[i] = info_field(i, "total_connections_received");
    uint64_t ext = 0;
    for (int k = 0; k < 5; k++) {
        make_key(key, sizeof(key), "reuse");
        rl_watch *w = acquire_watched(&a, key, S(150), 0, &info);
        REQUIRE(w != NULL);
        msleep(S(130)); /* past a third of the ttl: the watchdog extended it */
        rl_watch_stop(w);
        rl_watch_status st;
        rl_watch_status_get(w, &st);
        ext += st.extensions;
        rl_release(&a.ctx, key, strlen(key), info.token, NULL);
        rl_watch_unref(w);
    }
    CHECK(ext >= 5); /* every lock was extended, so the watchdog did connect */
    /* (the probe before and this one are two connections of their own) */
    for (int i = 0; i < NNODES; i++) CHECK_EQ(info_field(i, "total_connections_received") - before[i] - 1, 1);
    client_close(&a);
}

/* A node set whose last watch ended keeps its connections for the next one,
 * and closes them once idle for the idle time */
static void test_idle_sets_closed(void)
{
    client a;
    char key[96];
    rl_lock_info info;
    REQUIRE(client_open(&a) == 0);
    rl_watchdog_shutdown();
    rl_watchdog_set_idle_ms(S(300));
    make_key(key, sizeof(key), "idle");
    long long clients0 = info_field(0, "connected_clients");
    rl_watch *w = acquire_watched(&a, key, S(150), 0, &info);
    REQUIRE(w != NULL);
    msleep(S(130));
    rl_watch_stop(w);
    rl_release(&a.ctx, key, strlen(key), info.token, NULL);
    rl_watch_unref(w);
    int idle = -1;
    CHECK_EQ(rl_watchdog_sets(&idle), 1);
    CHECK_EQ(idle, 1);
    /* ours, the watchdog's (idle) and the probe's */
    CHECK_EQ(info_field(0, "connected_clients"), clients0 + 2);
    uint64_t t0 = mono_ms();
    while (rl_watchdog_sets(NULL) > 0 && mono_ms() - t0 < S(2000)) msleep(S(10));
    uint64_t took = mono_ms() - t0;
    CHECK_EQ(rl_watchdog_sets(NULL), 0);
    CHECK(took < S(300) + S(300));
    long long clients = -1;
    for (int k = 0; k < 50; k++) { /* the server sees the close a moment later */
        clients = info_field(0, "connected_clients");
        if (clients == clients0 + 1) break;
        msleep(S(10));
    }
    CHECK_EQ(clients, clients0 + 1);
    rl_watchdog_set_idle_ms(S(0));
    client_close(&a);
}

/* rl_watchdog_drop_idle() (a request's end) closes the idle connections of
 * non-persistent watches only */
static void test_drop_idle(void)
{
    client a;
    char key[96];
    rl_lock_info info;
    REQUIRE(client_open(&a) == 0);
    rl_watchdog_shutdown();
    for (int persistent = 0; persistent < 2; persistent++) {
        make_key(key, sizeof(key), "drop");
        REQUIRE(rl_acquire(&a.ctx, key, strlen(key), S(300), &one_try, &info, NULL) == RL_ACQUIRED);
        rl_watch_spec spec = {.confs = a.confs,
                              .conns = a.conns,
                              .n = NNODES,
                              .key = key,
                              .keylen = strlen(key),
                              .token = info.token,
                              .ttl_ms = S(300),
                              .drift_factor = 0.01,
                              .persistent = persistent};
        rl_watch *w = rl_watch_start(&spec, &info);
        REQUIRE(w != NULL);
        rl_watch_stop(w);
        rl_watch_unref(w);
        rl_release(&a.ctx, key, strlen(key), info.token, NULL);
        CHECK_EQ(rl_watchdog_sets(NULL), 1);
        rl_watchdog_drop_idle();
        CHECK_EQ(rl_watchdog_sets(NULL), persistent);
    }
    rl_watchdog_shutdown();
    client_close(&a);
}

/* Nodes named by a host name: the watchdog thread never looks it up (the
 * caller hands the address over), so a resolver that takes longer than the
 * lock's ttl costs no extension. */
static void test_no_lookup_in_thread(void)
{
    client a;
    char key[96];
    rl_lock_info info;
    REQUIRE(client_open_host(&a, "localhost") == 0);
    rl_watchdog_shutdown();
    make_key(key, sizeof(key), "names");
    g_slow_ms = S(1000); /* a lookup in the watchdog thread: 1 s, past the 300 ms ttl */
    g_gai_other = 0;
    g_gai_main = 0;
    CHECK_OUT(rl_acquire(&a.ctx, key, strlen(key), S(300), &one_try, &info, NULL), RL_ACQUIRED);
    CHECK(g_gai_main >= NNODES); /* the caller's own connections resolved "localhost" */
    rl_release(&a.ctx, key, strlen(key), info.token, NULL);
    for (int round = 0; round < 2; round++) {
        make_key(key, sizeof(key), "names");
        rl_lock_info li;
        REQUIRE(rl_acquire(&a.ctx, key, strlen(key), S(300), &one_try, &li, NULL) == RL_ACQUIRED);
        rl_watch_spec spec = {.confs = a.confs,
                              .conns = round == 0 ? a.conns : NULL, /* without: resolved in this thread */
                              .n = NNODES,
                              .key = key,
                              .keylen = strlen(key),
                              .token = li.token,
                              .ttl_ms = S(300),
                              .drift_factor = 0.01};
        rl_watch *w = rl_watch_start(&spec, &li);
        REQUIRE(w != NULL);
        msleep(S(700)); /* two ttls */
        rl_watch_status st;
        rl_watch_status_get(w, &st);
        CHECK_EQ(st.state, RL_WATCH_ACTIVE);
        if (st.state != RL_WATCH_ACTIVE) printf("    reason: %s\n", st.reason);
        CHECK(st.extensions >= 3);
        uint64_t t0 = mono_ms();
        rl_watch_stop(w); /* (release() waits for an extension in flight: never for a lookup) */
        CHECK(mono_ms() - t0 < S(300));
        rl_release(&a.ctx, key, strlen(key), li.token, NULL);
        rl_watch_unref(w);
    }
    CHECK_EQ(g_gai_other, 0);
    g_slow_ms = 0;
    client_close(&a);
}

/* a test that failed half-way may leave a node paused: the next one starts with all up */
/* on_lost: a deadline-only watch calls back once, from the watchdog thread,
 * when the validity ends (no connection of its own); with max_hold the
 * extensions stop and the callback comes at the validity's end; a watch
 * stopped before never calls back */
static _Atomic int g_lost_calls[3];
static _Atomic uint64_t g_lost_at[3];
static void on_lost_cb(void *arg)
{
    int i = (int)(intptr_t)arg;
    g_lost_at[i] = mono_ms();
    g_lost_calls[i]++;
}

static void test_on_lost(void)
{
    client a;
    char k0[96], k1[96], k2[96];
    rl_lock_info i0, i1, i2;
    REQUIRE(client_open(&a) == 0);
    make_key(k0, sizeof(k0), "lost-deadline");
    make_key(k1, sizeof(k1), "lost-maxhold");
    make_key(k2, sizeof(k2), "lost-stopped");
    uint64_t t0 = mono_ms();
    REQUIRE(rl_acquire(&a.ctx, k0, strlen(k0), S(300), &one_try, &i0, NULL) == RL_ACQUIRED);
    REQUIRE(rl_acquire(&a.ctx, k1, strlen(k1), S(300), &one_try, &i1, NULL) == RL_ACQUIRED);
    REQUIRE(rl_acquire(&a.ctx, k2, strlen(k2), S(300), &one_try, &i2, NULL) == RL_ACQUIRED);
    int sets_before = rl_watchdog_sets(NULL);
    rl_watch_spec s0 = {.confs = a.confs,
                        .n = NNODES,
                        .key = k0,
                        .keylen = strlen(k0),
                        .token = i0.token,
                        .ttl_ms = S(300),
                        .drift_factor = 0.01,
                        .deadline_only = 1,
                        .on_lost = on_lost_cb,
                        .on_lost_arg = (void *)(intptr_t)0};
    rl_watch_spec s1 = s0, s2 = s0;
    s1.key = k1, s1.keylen = strlen(k1), s1.token = i1.token, s1.deadline_only = 0, s1.max_hold_ms = S(500);
    s1.on_lost_arg = (void *)(intptr_t)1;
    s2.key = k2, s2.keylen = strlen(k2), s2.token = i2.token, s2.on_lost_arg = (void *)(intptr_t)2;
    rl_watch *w0 = rl_watch_start(&s0, &i0), *w1 = rl_watch_start(&s1, &i1), *w2 = rl_watch_start(&s2, &i2);
    REQUIRE(w0 && w1 && w2);
    rl_watch_stop(w2);
    while ((g_lost_calls[0] == 0 || g_lost_calls[1] == 0) && mono_ms() - t0 < S(3000)) msleep(S(5));
    msleep(S(100));
    CHECK_EQ(g_lost_calls[0], 1);
    CHECK_EQ(g_lost_calls[1], 1);
    CHECK_EQ(g_lost_calls[2], 0);
    CHECK_EQ(state_of(w0), RL_WATCH_LOST);
    CHECK_EQ(state_of(w1), RL_WATCH_LOST);
    CHECK_EQ(state_of(w2), RL_WATCH_STOPPED);
    /* not before the validity's end, and within a few ms of it */
    uint64_t end0 = i0.valid_until_us / 1000u;
    CHECK(g_lost_at[0] >= end0 && g_lost_at[0] < end0 + S(50));
    /* max_hold 500: extended until then, lost one validity (<= 300 ms) later */
    CHECK(g_lost_at[1] >= t0 + S(500) && g_lost_at[1] < t0 + S(500) + S(300) + S(100));
    /* the deadline watches opened no connections: only the max_hold one's node set */
    CHECK(rl_watchdog_sets(NULL) <= sets_before + 1);
    rl_watch_unref(w0);
    rl_watch_unref(w1);
    rl_watch_unref(w2);
    client_close(&a);
}

static _Atomic int g_pokes[3];
static _Atomic uint64_t g_poke_at[3];
static void poke_cb(void *arg)
{
    int i = (int)(intptr_t)arg;
    g_poke_at[i] = mono_ms();
    g_pokes[i]++;
}

/* rl_watchdog_poke: each timer once, after its delay; poked again while
 * armed, it keeps its time; cancelled, it never runs; armed again once run */
static void test_poke(void)
{
    rl_poke p[3];
    memset(p, 0, sizeof(p));
    for (int i = 0; i < 3; i++) {
        p[i].cb = poke_cb;
        p[i].arg = (void *)(intptr_t)i;
    }
    uint64_t t0 = mono_ms();
    REQUIRE(rl_watchdog_poke(&p[0], S(20000)) == 0);
    REQUIRE(rl_watchdog_poke(&p[1], S(60000)) == 0);
    REQUIRE(rl_watchdog_poke(&p[2], S(40000)) == 0);
    REQUIRE(rl_watchdog_poke(&p[0], S(500000)) == 0); /* armed: keeps 20 ms */
    rl_watchdog_poke_cancel(&p[2]);
    while ((g_pokes[0] == 0 || g_pokes[1] == 0) && mono_ms() - t0 < S(3000)) msleep(S(2));
    msleep(S(100));
    CHECK_EQ(g_pokes[0], 1);
    CHECK_EQ(g_pokes[1], 1);
    CHECK_EQ(g_pokes[2], 0);
    CHECK(g_poke_at[0] >= t0 + S(20) && g_poke_at[0] < t0 + S(20) + S(50));
    CHECK(g_poke_at[1] >= t0 + S(60) && g_poke_at[1] < t0 + S(60) + S(50));
    /* once run it is not armed: a new poke runs it again */
    REQUIRE(rl_watchdog_poke(&p[0], S(1000)) == 0);
    while (g_pokes[0] < 2 && mono_ms() - t0 < S(3000)) msleep(S(2));
    CHECK_EQ(g_pokes[0], 2);
    rl_watchdog_poke_cancel(&p[0]); /* not armed: a no-op */
}

static void resume_paused(void)
{
    for (int k = 0; k < NNODES; k++)
        if (g_node[k].paused) node_resume(k);
}

static const test_case tests[] = {
    {"watchdog_held_past_ttl", test_held_past_ttl},
    {"watchdog_no_extension_after_stop", test_no_extension_after_stop},
    {"watchdog_lost_three_paused", test_lost_three_paused},
    {"watchdog_max_hold", test_max_hold},
    {"watchdog_readers_and_caller_extend", test_readers},
    {"watchdog_fork", test_fork},
    {"watchdog_200_locks", test_many},
    {"watchdog_shutdown", test_shutdown},
    {"watchdog_connections_reused", test_connections_reused},
    {"watchdog_idle_sets_closed", test_idle_sets_closed},
    {"watchdog_drop_idle", test_drop_idle},
    {"watchdog_no_lookup_in_thread", test_no_lookup_in_thread},
    {"watchdog_on_lost", test_on_lost},
    {"watchdog_poke", test_poke},
};

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    g_main_thread = pthread_self();
    alarm(240); /* a hung test must not hang CI */
    if (nodes_start() != 0) {
        printf("FAIL watchdog: cannot start redis-server nodes (tests/nodes.sh run)\n");
        printf("0 passed, 1 failed\n");
        return 1;
    }
    test_counts c = run_tests(tests, N_TESTS(tests), argc, argv, NULL, resume_paused);
    rl_watchdog_shutdown();
    return tests_summary(c);
}
