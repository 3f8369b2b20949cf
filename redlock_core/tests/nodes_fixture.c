/* nodes_fixture.c -- the real redis-server nodes of build/unit_tests and a
 * fan-out over them (declared and described in tests/nodes_fixture.h). */
#define _GNU_SOURCE
#include "tests/nodes_fixture.h"
#include "tests/ports.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

tnode g_node[NNODES];
char g_dir[64];
static int g_nodes_state; /* 0 not started, 1 up, -1 failed to start */

int free_node_port(void) { return free_port(); }

uint64_t mono_us(void) { return rl_clock_monotonic.now_us(NULL); }

void msleep(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {}
}

static void on_fatal_signal(int sig)
{
    /* async-signal-safe: only kill(2) by the pids we started */
    for (int i = 0; i < NNODES; i++)
        if (g_node[i].pid > 0) kill(g_node[i].pid, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

void net_setup_signals(void)
{
    signal(SIGINT, on_fatal_signal);
    signal(SIGTERM, on_fatal_signal);
    signal(SIGHUP, on_fatal_signal);
    signal(SIGALRM, on_fatal_signal);
    /* a hung test must not hang CI: the whole binary gets 240 s */
    alarm(240);
}

void node_sock_path(int i, char *buf, size_t len) { snprintf(buf, len, "%s/node%d.sock", g_dir, i); }

/* tests/nodes.sh with args (its `run`, `run-tls` exec redis-server: same pid),
 * its output to logf; REDLOCK_NODES_SH overrides where it is (default: from
 * redlock_core/). */
pid_t spawn_nodes_sh(const char *logf, const char *const *args)
{
    const char *nodes_sh = getenv("REDLOCK_NODES_SH") ? getenv("REDLOCK_NODES_SH") : "../tests/nodes.sh";
    char *argv[16] = {"bash", (char *)nodes_sh};
    for (int k = 0; args[k] && k < 13; k++) argv[k + 2] = (char *)args[k];
    pid_t parent = getpid();
    fflush(stdout);
    pid_t pid = fork();
    if (pid != 0) return pid;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(126);
    int fd = open(logf, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0) dup2(nul, 0);
    execvp("bash", argv);
    _exit(127);
}

/* The server's command line is tests/nodes.sh's. */
static pid_t spawn_redis(int i, int port)
{
    char portbuf[16], logf[128], name[32];
    snprintf(portbuf, sizeof(portbuf), "%d", port);
    snprintf(logf, sizeof(logf), "%s/node%d.log", g_dir, i);
    snprintf(name, sizeof(name), "node%d", i);
    const char *args[] = {"run", portbuf, g_dir, name, NULL};
    return spawn_nodes_sh(logf, args);
}

static redisContext *admin_connect(int i)
{
    redisContext *c = loopback_connect(g_node[i].port);
    if (!c) return NULL;
    if (g_node[i].pw[0]) {
        redisReply *r = redisCommand(c, "AUTH %s", g_node[i].pw);
        if (r) freeReplyObject(r);
    }
    return c;
}

/* Run one admin command on node i in database db; returns the reply (free it) or NULL. */
redisReply *admin(int i, int db, const char *fmt, ...)
{
    redisContext *c = admin_connect(i);
    if (!c) return NULL;
    if (db) {
        redisReply *s = redisCommand(c, "SELECT %d", db);
        if (s) freeReplyObject(s);
    }
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    redisFree(c);
    return r;
}

/* integer reply, or -1000 (no reply / not an integer) */
long long admin_int(int i, int db, const char *fmt, ...)
{
    redisContext *c = admin_connect(i);
    long long v = -1000;
    if (!c) return v;
    if (db) {
        redisReply *s = redisCommand(c, "SELECT %d", db);
        if (s) freeReplyObject(s);
    }
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    if (r && r->type == REDIS_REPLY_INTEGER) v = r->integer;
    if (r) freeReplyObject(r);
    redisFree(c);
    return v;
}

int admin_ok(int i, const char *fmt, const char *arg)
{
    redisReply *r = admin(i, 0, fmt, arg);
    int ok = r && r->type == REDIS_REPLY_STATUS && strcmp(r->str, "OK") == 0;
    if (r) freeReplyObject(r);
    return ok;
}

/* PONG from our own process on node i's port, within ms */
static int node_wait_up(int i, int ms)
{
    uint64_t end = mono_us() + (uint64_t)ms * 1000u;
    while (mono_us() < end) {
        int st;
        if (waitpid(g_node[i].pid, &st, WNOHANG) == g_node[i].pid) {
            g_node[i].pid = 0;
            return -1;
        }
        redisReply *r = admin(i, 0, "INFO server");
        if (r && r->type == REDIS_REPLY_STRING) {
            const char *p = strstr(r->str, "process_id:");
            int same = p && atol(p + 11) == (long)g_node[i].pid;
            freeReplyObject(r);
            if (same) return 0;
        } else if (r) {
            freeReplyObject(r);
        }
        msleep(20);
    }
    return -1;
}

/* Start node i on port (or on a free port when 0, trying a few). */
int node_start(int i, int port)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        int p = port ? port : free_port();
        if (p <= 0) continue;
        g_node[i].port = p;
        g_node[i].paused = 0;
        g_node[i].pw[0] = '\0';
        g_node[i].pid = spawn_redis(i, p);
        if (g_node[i].pid < 0) {
            g_node[i].pid = 0;
            return -1;
        }
        if (node_wait_up(i, 5000) == 0) return 0;
        if (g_node[i].pid > 0) {
            kill(g_node[i].pid, SIGKILL);
            waitpid(g_node[i].pid, NULL, 0);
            g_node[i].pid = 0;
        }
        if (port) msleep(100); /* same port: maybe not free yet */
    }
    return -1;
}

/* Start nodes 0..n-1 again on their ports, side by side: all are spawned
 * before any is waited for, so that the restart takes one start's time, not
 * n. A node that did not come up is started once more alone (node_start). */
int nodes_start_together(int n, const int *port)
{
    for (int i = 0; i < n; i++) {
        g_node[i].port = port[i];
        g_node[i].paused = 0;
        g_node[i].pw[0] = '\0';
        g_node[i].pid = spawn_redis(i, port[i]);
        if (g_node[i].pid < 0) g_node[i].pid = 0;
    }
    for (int i = 0; i < n; i++) {
        if (g_node[i].pid > 0 && node_wait_up(i, 5000) == 0) continue;
        if (g_node[i].pid > 0) {
            kill(g_node[i].pid, SIGKILL);
            waitpid(g_node[i].pid, NULL, 0);
            g_node[i].pid = 0;
        }
        if (node_start(i, port[i]) != 0) return -1;
    }
    return 0;
}

/* Stop node i by its pid: SIGTERM, bounded wait, then SIGKILL. */
void node_stop(int i, int sig)
{
    pid_t pid = g_node[i].pid;
    if (pid <= 0) return;
    if (g_node[i].paused) kill(pid, SIGCONT);
    g_node[i].paused = 0;
    kill(pid, sig);
    for (int k = 0; k < 300; k++) {
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            g_node[i].pid = 0;
            return;
        }
        msleep(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    g_node[i].pid = 0;
}

void node_pause(int i)
{
    if (g_node[i].pid > 0 && kill(g_node[i].pid, SIGSTOP) == 0) g_node[i].paused = 1;
}

void node_resume(int i)
{
    if (g_node[i].pid > 0) kill(g_node[i].pid, SIGCONT);
    g_node[i].paused = 0;
}

void nodes_stop_all(void)
{
    for (int i = 0; i < NNODES; i++) node_stop(i, SIGTERM);
    if (g_dir[0]) {
        char path[160];
        for (int i = 0; i < NNODES; i++) {
            snprintf(path, sizeof(path), "%s/node%d.log", g_dir, i);
            unlink(path);
            snprintf(path, sizeof(path), "%s/node%d.sock", g_dir, i);
            unlink(path);
            snprintf(path, sizeof(path), "%s/node%d.rdb", g_dir, i);
            unlink(path);
        }
        rmdir(g_dir);
        g_dir[0] = '\0';
    }
    g_nodes_state = 0;
}

int nodes_up(void)
{
    if (g_nodes_state) return g_nodes_state > 0;
    snprintf(g_dir, sizeof(g_dir), "/tmp/rl-unit.XXXXXX");
    if (!mkdtemp(g_dir)) {
        g_dir[0] = '\0';
        g_nodes_state = -1;
        return 0;
    }
    atexit(nodes_stop_all);
    for (int i = 0; i < NNODES; i++) {
        if (node_start(i, 0) != 0) {
            printf("    cannot start redis-server node %d (is redis-server installed?)\n", i);
            g_nodes_state = -1;
            return 0;
        }
    }
    g_nodes_state = 1;
    return 1;
}

int tnet_open_uris(tnet *t, int n, const char *const *uris, int timeout_ms)
{
    memset(t, 0, sizeof(*t));
    for (int k = 0; k < n; k++) {
        char err[128];
        rl_node_conf conf;
        memset(&conf, 0, sizeof(conf));
        if (rl_uri_parse(uris[k], strlen(uris[k]), &conf, err, sizeof(err)) != 0) {
            check_failf(__FILE__, __LINE__, "uri %s: %s", uris[k], err);
            return -1;
        }
        conf.connect_timeout_ms = timeout_ms;
        conf.timeout_ms = timeout_ms;
        t->conns[k] = rl_conn_new(&conf);
        rl_node_conf_free(&conf);
        if (!t->conns[k]) return -1;
        t->n = k + 1;
    }
    t->net.conns = t->conns;
    t->net.n = n;
    t->net.clock = &rl_clock_monotonic;
    t->tp.fanout = rl_net_fanout;
    t->tp.ctx = &t->net;
    t->ctx.tp = &t->tp;
    t->ctx.clock = &rl_clock_monotonic;
    t->ctx.rnd = &rl_random_system;
    t->ctx.n = n;
    return 0;
}

/* fmt gets the node's port, e.g. "redis://:pw@127.0.0.1:%d/3" */
int tnet_open_fmt(tnet *t, int first, int n, const char *fmt)
{
    char buf[RL_MAX_NODES][256];
    const char *uris[RL_MAX_NODES];
    for (int k = 0; k < n; k++) {
        snprintf(buf[k], sizeof(buf[k]), fmt, g_node[first + k].port);
        uris[k] = buf[k];
    }
    return tnet_open_uris(t, n, uris, NET_TIMEOUT_MS);
}

int tnet_open(tnet *t, int n) { return tnet_open_fmt(t, 0, n, "127.0.0.1:%d"); }

void tnet_close(tnet *t)
{
    for (int i = 0; i < t->n; i++) rl_conn_free(t->conns[i]);
    t->n = 0;
}

int reply_is(const rl_result *r, int type, const char *s)
{
    if (r->state != RL_ANSWERED || r->reply.type != type) return 0;
    return !s || (r->reply.len == strlen(s) && strcmp(r->reply.str, s) == 0);
}

/* ECHO payload to every node, waiting for all: returns how many answered it */
int echo_all(tnet *t, const char *payload, rl_result *res)
{
    rl_cmd cmd;
    memset(&cmd, 0, sizeof(cmd));
    cmd.argc = 2;
    cmd.argv[0] = "ECHO";
    cmd.argvlen[0] = 4;
    cmd.argv[1] = payload;
    cmd.argvlen[1] = strlen(payload);
    memset(res, 0x5a, sizeof(*res) * (size_t)t->n);
    if (rl_net_fanout(&t->net, &cmd, res, t->n, NULL, NULL) != 0) return -1;
    int good = 0;
    for (int i = 0; i < t->n; i++) good += reply_is(&res[i], RL_REPLY_STRING, payload);
    return good;
}

void describe(const char *what, const rl_result *res, int n)
{
    for (int i = 0; i < n; i++)
        printf("      %s node %d: state=%d err=%s type=%d str=%s int=%lld reason=%s\n", what, i, res[i].state,
               rl_err_name(res[i].err), res[i].reply.type, res[i].reply.str, res[i].reply.integer, res[i].reason);
}

/* Every node that answered a lock command answered it with the right kind. */
void check_answers(const rl_call *call, int n, int type, long long integer, const char *what)
{
    for (int i = 0; i < n; i++) {
        const rl_result *r = &call->res[i];
        if (r->state != RL_ANSWERED) continue;
        int ok = r->reply.type == type && (type != RL_REPLY_INTEGER || r->reply.integer == integer) &&
                 (type != RL_REPLY_STATUS || strcmp(r->reply.str, "OK") == 0);
        if (!ok)
            check_failf(__FILE__, __LINE__, "%s: node %d answered type %d \"%s\" %lld", what, i, r->reply.type,
                        r->reply.str, r->reply.integer);
    }
}

int contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

/* appends one argument to a command built by hand */
void arg_push(rl_cmd *cmd, const char *s)
{
    cmd->argv[cmd->argc] = s;
    cmd->argvlen[cmd->argc++] = strlen(s);
}

/* after a resume: bounded wait until node i holds no key in db (a caller
 * that needs the node to have run everything drains first) */
long long wait_dbsize_zero(int i, int db, int ms)
{
    long long n = -1;
    for (int k = 0; k < ms / 20; k++) {
        n = admin_int(i, db, "DBSIZE");
        if (n == 0) break;
        msleep(20);
    }
    return n;
}

static void *scripted_main(void *arg)
{
    scripted *s = arg;
    struct pollfd p = {s->lfd, POLLIN, 0};
    if (poll(&p, 1, 3000) <= 0) return NULL;
    int fd = accept(s->lfd, NULL, NULL);
    if (fd < 0) return NULL;
    for (int k = 0; k < s->nanswers; k++) {
        char buf[4096];
        struct pollfd q = {fd, POLLIN, 0};
        if (poll(&q, 1, 3000) <= 0 || recv(fd, buf, sizeof(buf), 0) <= 0) break;
        /* the rest of what the client wrote at once (a connect's SCRIPT LOADs exceed one buffer) */
        while (poll(&q, 1, 20) > 0 && recv(fd, buf, sizeof(buf), 0) > 0) {
        }
        size_t len = strlen(s->answers[k]);
        if (send(fd, s->answers[k], len, MSG_NOSIGNAL) != (ssize_t)len) break;
    }
    struct pollfd q = {fd, POLLIN, 0};
    poll(&q, 1, 300); /* let the client finish reading before EOF */
    close(fd);
    return NULL;
}

int scripted_start(scripted *s, const char *const *answers, int n)
{
    struct sockaddr_un a;
    memset(s, 0, sizeof(*s));
    snprintf(s->path, sizeof(s->path), "%s/scripted.sock", g_dir);
    unlink(s->path);
    s->answers = answers;
    s->nanswers = n;
    s->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    memcpy(a.sun_path, s->path, strlen(s->path));
    if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(s->lfd, 4) != 0) return -1;
    return pthread_create(&s->th, NULL, scripted_main, s);
}

void scripted_stop(scripted *s)
{
    pthread_join(s->th, NULL);
    close(s->lfd);
    unlink(s->path);
}

const char *hs_replies(char *buf, size_t cap, const char *rest)
{
    size_t len = (size_t)snprintf(buf, cap, "-NOPERM no INFO\r\n-NOPERM no INFO\r\n");
    for (size_t k = 0; k < RL_SCRIPTS_N && len < cap; k++)
        len += (size_t)snprintf(buf + len, cap - len, "$40\r\n0123456789012345678901234567890123456789\r\n");
    if (len < cap) len += (size_t)snprintf(buf + len, cap - len, "%s", rest);
    if (len >= cap) check_failf(__FILE__, __LINE__, "hs_replies: %zu bytes do not fit %zu", len, cap);
    return buf;
}
