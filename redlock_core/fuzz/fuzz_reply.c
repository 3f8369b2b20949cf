/* fuzz_reply.c -- libFuzzer target: what a hostile node sends back.
 *
 * This target drives the whole fan-out (fuzz_feed takes the parser alone):
 * a unix-socket listener inside this process (served by one helper thread)
 * answers every connection the fan-out opens with the fuzz input, then
 * closes it. Each call therefore ends at EOF at the latest: no timeouts,
 * fast iterations.
 *
 * Input: byte 0 selects the set-up (password, user, database with the
 * restart checks, EVALSHA with
 * its script for the NOSCRIPT fallback, which call, how many nodes, an
 * acquire that waits on subscriber connections, which read the same bytes); the
 * rest is the byte stream every node sends.
 *
 * Invariants: no crash/leak/UB; every node ends ANSWERED or FAILED when the
 * call waits for all; strings are terminated within their buffers; an
 * ANSWERED node never carries an error reply; outcomes are in range. */
#define _GNU_SOURCE
#include "fuzz/fuzz_pipe.h"
#include "rl_internal.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define FAIL_IF(c)               \
    do {                         \
        if (c) __builtin_trap(); \
    } while (0)

static char sock_path[108];
static int listen_fd = -1;
static int ctl[2], ack[2];          /* main → server: 'S' start a job, 'E' end it; server → main: ack */
static const uint8_t *job_data;
static size_t job_len;

static void serve_one(int fd)
{
    /* take what the client wrote (handshake + command), bounded wait */
    struct pollfd p = {fd, POLLIN, 0};
    int pr;
    while ((pr = poll(&p, 1, 1000)) < 0 && errno == EINTR) {
    }
    if (pr > 0) {
        char buf[4096];
        while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0) {
        }
    }
    size_t off = 0;
    while (off < job_len) {
        ssize_t w = send(fd, job_data + off, job_len - off, MSG_NOSIGNAL);
        if (w <= 0) {
            if (w < 0 && errno == EINTR) continue;
            break; /* the client gave up on us: fine */
        }
        off += (size_t)w;
    }
    close(fd);
}

static void *server_main(void *arg)
{
    (void)arg;
    for (;;) {
        char c;
        if (get1(ctl[0], &c) != 0) abort();
        if (c != 'S') continue;
        /* serve connections until the job ends */
        for (;;) {
            struct pollfd p[2] = {{listen_fd, POLLIN, 0}, {ctl[0], POLLIN, 0}};
            if (poll(p, 2, -1) < 0) {
                if (errno == EINTR) continue;
                break;
            }
            if (p[0].revents & POLLIN) {
                int fd = accept(listen_fd, NULL, NULL);
                if (fd >= 0) serve_one(fd);
                continue;
            }
            if (p[1].revents & POLLIN) {
                if (get1(ctl[0], &c) == 0 && c == 'E') break;
            }
        }
        /* connections left in the backlog would get the next job's data: drop them */
        for (;;) {
            struct pollfd p = {listen_fd, POLLIN, 0};
            if (poll(&p, 1, 0) <= 0) break;
            int fd = accept(listen_fd, NULL, NULL);
            if (fd < 0 && errno == EINTR) continue;
            if (fd < 0) break;
            close(fd);
        }
        c = 'A';
        if (put1(ack[1], c) != 0) abort();
    }
}

static void cleanup(void)
{
    if (sock_path[0]) unlink(sock_path);
}

/* sockets left by earlier runs that crashed (atexit does not run then) */
static void remove_stale_sockets(void)
{
    DIR *d = opendir("/tmp");
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        int pid = 0;
        char tail[8] = "";
        if (sscanf(e->d_name, "rl-fuzz-reply.%d.%7s", &pid, tail) == 2 && strcmp(tail, "sock") == 0 && pid > 0 &&
            kill(pid, 0) != 0 && errno == ESRCH) {
            char p[300];
            snprintf(p, sizeof(p), "/tmp/%s", e->d_name);
            unlink(p);
        }
    }
    closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    remove_stale_sockets();
    snprintf(sock_path, sizeof(sock_path), "/tmp/rl-fuzz-reply.%d.sock", (int)getpid());
    unlink(sock_path);
    listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a;
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    memcpy(a.sun_path, sock_path, strlen(sock_path));
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(listen_fd, 64) != 0) {
        perror("fuzz_reply: listen");
        abort();
    }
    atexit(cleanup);
    if (pipe(ctl) != 0 || pipe(ack) != 0) abort();
    pthread_t th;
    if (pthread_create(&th, NULL, server_main, NULL) != 0) abort();
    pthread_detach(th);
    return 0;
}

static void check_result(const rl_result *r, int must_be_done)
{
    FAIL_IF(r->state != RL_PENDING && r->state != RL_ANSWERED && r->state != RL_FAILED);
    if (must_be_done) FAIL_IF(r->state == RL_PENDING);
    FAIL_IF(memchr(r->reason, '\0', sizeof(r->reason)) == NULL);
    FAIL_IF(memchr(r->reply.str, '\0', sizeof(r->reply.str)) == NULL);
    if (r->state == RL_ANSWERED) {
        FAIL_IF(r->reply.type < RL_REPLY_STATUS || r->reply.type > RL_REPLY_ARRAY);
        FAIL_IF(r->reply.type == RL_REPLY_ERROR);
        if (r->reply.type == RL_REPLY_STATUS || r->reply.type == RL_REPLY_STRING)
            FAIL_IF(strlen(r->reply.str) > r->reply.len);
    }
    if (r->state == RL_FAILED) {
        FAIL_IF(r->err <= RL_OK || r->err > RL_E_STALLED);
        /* Known (reported): an error reply with empty text ("-\r\n") gives
         * RL_E_REDIS with an empty reason; tolerated here, checked for the rest. */
        if (r->err != RL_E_REDIS) FAIL_IF(r->reason[0] == '\0');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t flags = data[0];
    int n = 1 + (flags >> 6) % 3; /* 1..3 nodes, all served the same bytes */
    int mode = (flags >> 4) & 3;  /* 0 raw fan-out, 1 acquire, 2 release/extend, 3 is_locked */

    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    conf.socket = sock_path;
    conf.password = (flags & 1) ? (char *)"pw~fuzz" : NULL;
    conf.user = (flags & 3) == 3 ? (char *)"fuzzuser" : NULL;
    conf.database = (flags & 4) ? 3 : 0;
    conf.connect_timeout_ms = 2000;
    conf.timeout_ms = 2000;

    rl_conn *conns[3] = {0}, *subs[3] = {0};
    static rl_subs waiting;
    rl_waiter waiter;
    for (int i = 0; i < n; i++) {
        conns[i] = rl_conn_new(&conf);
        if (!conns[i]) goto out;
    }
    rl_net net = {.conns = conns, .n = n, .clock = &rl_clock_monotonic};
    rl_transport tp = {rl_net_fanout, &net};
    rl_ctx ctx = {&tp, &rl_clock_monotonic, &rl_random_system, n, NULL, NULL};
    /* with database 3 also the restart checks (docs/api.md "Restarted nodes"):
     * the maxttl scripts, their taken-apart answers and the vote mask */
    static rl_restart rs;
    if (flags & 4) {
        memset(&rs, 0, sizeof(rs));
        rs.grace_ms = (flags & 2) ? 1000 : RL_GRACE_AUTO;
        rs.maxttl_key = "m";
        rs.maxttl_keylen = 1;
        ctx.rs = &rs;
    }

    job_data = data + 1;
    job_len = size - 1;
    char c = 'S';
    if (put1(ctl[1], c) != 0) abort();

    rl_call call;
    rl_lock_info info;
    memset(&info, 0, sizeof(info));
    int out = 0;
    switch (mode) {
    case 0: {
        rl_cmd cmd;
        rl_result res[3];
        memset(&cmd, 0, sizeof(cmd));
        if (flags & 8) {
            cmd.argc = 5;
            cmd.argv[0] = "EVALSHA";
            cmd.argv[1] = rl_script_release_sha;
            cmd.argv[2] = "1";
            cmd.argv[3] = "k";
            cmd.argv[4] = "tok";
            cmd.script = rl_script_release;
        } else {
            cmd.argc = 2;
            cmd.argv[0] = "EXISTS";
            cmd.argv[1] = "k";
        }
        for (int a = 0; a < cmd.argc; a++) cmd.argvlen[a] = strlen(cmd.argv[a]);
        FAIL_IF(rl_net_fanout(&net, &cmd, res, n, NULL, NULL) != 0);
        for (int i = 0; i < n; i++) check_result(&res[i], 1);
        break;
    }
    case 1: {
        rl_opts o = {.retry_count = 0, .retry_delay_ms = 0, .retry_jitter_ms = 0, .wait_ms = 0, .drift_factor = 0.01};
        if (flags & 8) {
            /* a wait that wakes on release: subscriber connections get the same bytes */
            o.wait_ms = 5;
            o.retry_delay_ms = 2;
            o.wake_on_release = 1;
            for (int i = 0; i < n; i++) {
                subs[i] = rl_conn_new_subscriber(&conf);
                if (!subs[i]) goto out;
            }
            rl_subs_init(&waiting, subs, n, &rl_clock_monotonic, &waiter);
            ctx.waiter = &waiter;
        }
        out = rl_acquire(&ctx, "k", 1, 10000, &o, &info, &call);
        FAIL_IF(out != RL_ACQUIRED && out != RL_CONFLICT && out != RL_NO_QUORUM);
        if (out == RL_ACQUIRED) FAIL_IF(info.ok < rl_quorum(n) || info.validity_ms <= 0);
        break;
    }
    case 2:
        if (flags & 8) {
            out = rl_extend(&ctx, "k", 1, "tok", 10000, 0.01, &info, &call);
            FAIL_IF(out != RL_EXTENDED && out != RL_LOST && out != RL_NO_QUORUM);
        } else {
            out = rl_release(&ctx, "k", 1, "tok", &call);
            FAIL_IF(out != RL_RELEASED && out != RL_LOST && out != RL_NO_QUORUM);
        }
        break;
    default:
        out = rl_is_locked(&ctx, "k", 1, &call);
        FAIL_IF(out != RL_YES && out != RL_NO && out != RL_NO_QUORUM);
        break;
    }
    if (mode != 0) {
        for (int i = 0; i < n; i++) check_result(&call.res[i], 0);
        FAIL_IF(call.answered + call.failed > n || call.ok > call.answered);
    }
    /* a late reply in flight is read and dropped, bounded */
    rl_net_drain(&net, 100000);

    c = 'E';
    if (put1(ctl[1], c) != 0) abort();
    if (get1(ack[0], &c) != 0) abort();
out:
    for (int i = 0; i < n; i++) {
        rl_conn_free(conns[i]);
        rl_conn_free(subs[i]);
    }
    return 0;
}
