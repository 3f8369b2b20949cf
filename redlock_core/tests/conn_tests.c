/* conn_tests.c -- a connection to one node (net/: rl_conn.c, rl_dial.c, rl_read.c, rl_node.c) against real
 * redis-server processes (tests/nodes_fixture.h): reconnect, back-off, AUTH
 * and SELECT, unix sockets, fork(), timeouts, reply sizes, NOSCRIPT and the
 * scripts sent again, a node answering twice, the replay state of a
 * connection given up as unreachable. A suite of build/unit_tests. */
#define _GNU_SOURCE
#include "rl_conn_struct.h"
#include "rl_conn_test.h"
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/nodes_fixture.h"
#include "tests/unit_tests.h"

#include <hiredis/hiredis.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Issue 22, partitions: the replay state of a connection given up as
 * unreachable (rlc_abandon), without a socket. Releases are kept until
 * answered (not SCRIPT LOADs, not SETs), kept across the closes of the
 * connects that replace it, dropped by a close the server may have read, and
 * never sent by a child after fork(). */
static void test_owe_state(void)
{
    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    conf.host = "127.0.0.1";
    conf.port = 1;
    conf.timeout_ms = 50;
    conf.connect_timeout_ms = 50;
    rl_conn *c = rl_conn_new(&conf);
    REQUIRE(c != NULL);
    const char *rel[3] = {"EVALSHA", "x", "1"}, *set[2] = {"SET", "k"};
    size_t rell[3] = {7, 1, 1}, setl[2] = {3, 1};
    uint64_t now = mono_us();
    CHECK_EQ(rlc_append_cmd(c, 3, rel, rell, EXP_MINE, RL_OP_RELEASE, 1, now), 0);
    CHECK_EQ(rlc_append_cmd(c, 2, set, setl, EXP_MINE, RL_OP_SET, 2, now), 0);
    CHECK_EQ(rlc_append_cmd(c, 3, rel, rell, EXP_MINE, RL_OP_RELEASE, 2, now), 0);
    CHECK_EQ(rlc_append_cmd(c, 3, rel, rell, EXP_SCRIPT, RL_OP_RELEASE, 0, now), 0);
    CHECK_EQ(c->owe_n, 2);
    qent e;
    CHECK_EQ(rlc_q_pop(c, &e), EXP_MINE);
    CHECK(e.copied);
    CHECK_EQ(c->owe_n, 1); /* answered: no longer owed */
    c->gen = rl_fork_generation();
    rlc_abandon(c, now);
    CHECK(c->probing);
    CHECK_EQ(c->qlen, 0);
    CHECK_EQ(c->owe_n, 1);
    rl_cmd cmd;
    memset(&cmd, 0, sizeof(cmd));
    cmd.argc = 3;
    for (int k = 0; k < 3; k++) cmd.argv[k] = rel[k], cmd.argvlen[k] = rell[k];
    cmd.op = RL_OP_RELEASE;
    CHECK_EQ(rlc_owe_add(c, &cmd), 0); /* owed while no connection is open */
    CHECK_EQ(c->owe_n, 2);
    rl_conn_close(c); /* a connect of a probing node given up: nothing past its gate was written */
    CHECK(c->probing);
    CHECK_EQ(c->owe_n, 2);
    c->gen = rl_fork_generation() + 1; /* as in a child after fork() */
    rl_conn_close(c);
    CHECK(!c->probing);
    CHECK_EQ(c->owe_n, 0);
    CHECK_EQ(rlc_append_cmd(c, 3, rel, rell, EXP_MINE, RL_OP_RELEASE, 1, now), 0);
    CHECK_EQ(c->owe_n, 1);
    rl_conn_close(c); /* not probing: the server may have read it, the old rule */
    CHECK_EQ(c->owe_n, 0);
    /* one connect attempt: max(200 ms, timeout), at most connect_timeout */
    CHECK_EQ(rlc_probe_ms(c), 50);
    rl_conn_set_timeouts(c, 5000, 50);
    CHECK_EQ(rlc_probe_ms(c), 200);
    rl_conn_set_timeouts(c, 5000, 700);
    CHECK_EQ(rlc_probe_ms(c), 700);
    rl_conn_free(c);
}

/* A node killed and restarted on the same port: the next call reconnects
 * within the call, transparently. */
static void test_net_restart_reconnect(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    const int K = 0;
    REQUIRE(tnet_open(&t, NNODES) == 0);
    CHECK_EQ(echo_all(&t, "before", res), NNODES);
    CHECK_EQ(rl_conn_stats(t.conns[K])->connects, 1);

    int port = g_node[K].port;
    node_stop(K, SIGKILL);
    REQUIRE(node_start(K, port) == 0);
    CHECK_EQ(g_node[K].port, port);

    CHECK_EQ(echo_all(&t, "after-restart", res), NNODES);
    if (!reply_is(&res[K], RL_REPLY_STRING, "after-restart")) describe("after-restart", res, NNODES);
    CHECK_EQ(rl_conn_stats(t.conns[K])->connects, 2);
    /* and the new connection's scripts work (EVALSHA after its SCRIPT LOAD) */
    CHECK_OUT(rl_acquire(&t.ctx, "restart:k", 9, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK_OUT(rl_release(&t.ctx, "restart:k", 9, info.token, &call), RL_RELEASED);
    CHECK_EQ(echo_all(&t, "sync", res), NNODES);
    CHECK_EQ(admin_int(K, 0, "EXISTS restart:k"), 0);

    /* restarted while a lock was held: release still confirmed by a quorum */
    CHECK_OUT(rl_acquire(&t.ctx, "restart:k2", 10, 10000, &o, &info, &call), RL_ACQUIRED);
    node_stop(K, SIGKILL);
    REQUIRE(node_start(K, port) == 0);
    CHECK_OUT(rl_release(&t.ctx, "restart:k2", 10, info.token, &call), RL_RELEASED);
    tnet_close(&t);
}

/* A refused node fails with RL_E_REFUSED, then is skipped (RL_E_DOWN) during
 * its back-off, then used again once it is back and the back-off is over. */
static void test_net_refused_backoff(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    const int D = 4;
    REQUIRE(tnet_open(&t, NNODES) == 0);
    CHECK_EQ(echo_all(&t, "before", res), NNODES);

    int port = g_node[D].port;
    node_stop(D, SIGTERM);
    CHECK_EQ(echo_all(&t, "down-1", res), NNODES - 1);
    CHECK_EQ(res[D].state, RL_FAILED);
    CHECK_EQ(res[D].err, RL_E_REFUSED);
    CHECK(strlen(res[D].reason) > 0);
    uint64_t until = rl_conn_down_until_us(t.conns[D]);
    CHECK(until > mono_us());
    CHECK_EQ(rl_conn_backoff_ms(t.conns[D]), 100);

    uint64_t t0 = mono_us();
    CHECK_EQ(echo_all(&t, "down-2", res), NNODES - 1);
    CHECK_EQ(res[D].err, RL_E_DOWN);
    CHECK_EQ(res[D].sent, 0);
    CHECK(mono_us() - t0 < 100000);
    CHECK_OUT(rl_acquire(&t.ctx, "down:k", 6, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK(call.res[D].state == RL_FAILED && call.res[D].err == RL_E_DOWN);
    CHECK_OUT(rl_release(&t.ctx, "down:k", 6, info.token, &call), RL_RELEASED);
    CHECK(rl_conn_stats(t.conns[D])->skipped >= 2);

    REQUIRE(node_start(D, port) == 0);
    /* wait out the back-off (bounded) */
    for (int k = 0; k < 300 && mono_us() <= rl_conn_down_until_us(t.conns[D]); k++) msleep(10);
    CHECK_EQ(echo_all(&t, "back", res), NNODES);
    CHECK_EQ(rl_conn_backoff_ms(t.conns[D]), 0);
    CHECK_OUT(rl_is_locked(&t.ctx, "down:k", 6, &call), RL_NO);

    /* a port nobody listens on: refused, down, then refused again with a longer back-off */
    int dead = free_node_port();
    tnet d;
    char fmt[64];
    snprintf(fmt, sizeof(fmt), "127.0.0.1:%d", dead);
    REQUIRE(tnet_open_fmt(&d, 0, 1, fmt) == 0);
    CHECK_EQ(echo_all(&d, "x", res), 0);
    CHECK_EQ(res[0].err, RL_E_REFUSED);
    /* one node is its own quorum: skipping it would fail the call for sure,
     * so it is tried again, back-off or not (the back-off still grows) */
    CHECK_EQ(echo_all(&d, "x", res), 0);
    CHECK_EQ(res[0].err, RL_E_REFUSED);
    CHECK_EQ(rl_conn_backoff_ms(d.conns[0]), 200);
    CHECK_OUT(rl_is_locked(&d.ctx, "k", 1, &call), RL_NO_QUORUM);
    tnet_close(&d);
    tnet_close(&t);
}

/* AUTH with requirepass; a wrong password is RL_E_AUTH and is never echoed. */
static void net_auth_body(void)
{
    const int A = 2;
    const char *right = "Pw-Right-77", *wrong = "Wrong-Secret-42";
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    REQUIRE(admin_ok(A, "CONFIG SET requirepass %s", right));
    snprintf(g_node[A].pw, sizeof(g_node[A].pw), "%s", right);

    REQUIRE(tnet_open_fmt(&t, A, 1, "redis://:Wrong-Secret-42@127.0.0.1:%d") == 0);
    CHECK_EQ(echo_all(&t, "x", res), 0);
    CHECK_EQ(res[0].state, RL_FAILED);
    CHECK_EQ(res[0].err, RL_E_AUTH);
    if (contains(res[0].reason, wrong) || contains(res[0].reason, right) || contains(res[0].reason, "Secret"))
        check_failf(__FILE__, __LINE__, "reason leaks a password: %s", res[0].reason);
    const char *le = rl_conn_stats(t.conns[0])->last_error;
    CHECK(!contains(le, wrong) && !contains(le, right));
    CHECK(!rl_conn_is_open(t.conns[0]));
    /* next call inside the back-off: a lone node is tried anyway, and the
     * failure is still reported as an authentication failure */
    CHECK_EQ(echo_all(&t, "x", res), 0);
    CHECK_EQ(res[0].err, RL_E_AUTH);
    tnet_close(&t);

    /* a user that does not exist */
    REQUIRE(tnet_open_fmt(&t, A, 1, "redis://nobody:Pw-Right-77@127.0.0.1:%d") == 0);
    CHECK_EQ(echo_all(&t, "x", res), 0);
    CHECK_EQ(res[0].err, RL_E_AUTH);
    CHECK(!contains(res[0].reason, right));
    tnet_close(&t);

    /* no password at all: refused by the server, not answered */
    REQUIRE(tnet_open_fmt(&t, A, 1, "127.0.0.1:%d") == 0);
    CHECK_EQ(echo_all(&t, "x", res), 0);
    CHECK_EQ(res[0].state, RL_FAILED);
    tnet_close(&t);

    /* the right one: plain, percent-encoded, and with the default user */
    static const char *fmts[] = {"redis://:Pw-Right-77@127.0.0.1:%d", "redis://:Pw%%2dRight%%2D77@127.0.0.1:%d",
                                 "redis://default:Pw-Right-77@127.0.0.1:%d"};
    for (int k = 0; k < 3; k++) {
        REQUIRE(tnet_open_fmt(&t, A, 1, fmts[k]) == 0);
        CHECK_EQ(echo_all(&t, "authed", res), 1);
        CHECK_OUT(rl_acquire(&t.ctx, "auth:k", 6, 10000, &o, &info, &call), RL_ACQUIRED);
        CHECK_OUT(rl_release(&t.ctx, "auth:k", 6, info.token, &call), RL_RELEASED);
        tnet_close(&t);
    }

    /* three nodes, one of them with a wrong password: the other two decide */
    tnet m;
    memset(&m, 0, sizeof(m));
    REQUIRE(tnet_open_fmt(&m, A, 1, "redis://:nope-nope@127.0.0.1:%d") == 0);
    tnet rest;
    REQUIRE(tnet_open_fmt(&rest, 0, 2, "127.0.0.1:%d") == 0);
    m.conns[1] = rest.conns[0];
    m.conns[2] = rest.conns[1];
    m.n = 3;
    m.net.n = 3;
    m.ctx.n = 3;
    CHECK_OUT(rl_acquire(&m.ctx, "auth:m", 6, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK_OUT(rl_release(&m.ctx, "auth:m", 6, info.token, &call), RL_RELEASED);
    tnet_close(&m);
}

static void test_net_auth(void)
{
    NET_REQUIRE_NODES();
    net_auth_body();
    /* always restored, even when the body bailed out */
    CHECK(admin_ok(2, "CONFIG SET requirepass %s", ""));
    g_node[2].pw[0] = '\0';
}

static void test_net_select_db(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    REQUIRE(tnet_open_fmt(&t, 0, NNODES, "redis://127.0.0.1:%d/7") == 0);
    CHECK_OUT(rl_acquire(&t.ctx, "db:k", 4, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK_EQ(echo_all(&t, "sync", res), NNODES);
    for (int i = 0; i < NNODES; i++) {
        if (call.res[i].state != RL_ANSWERED) continue;
        CHECK_EQ(admin_int(i, 7, "EXISTS db:k"), 1);
        CHECK_EQ(admin_int(i, 0, "EXISTS db:k"), 0);
    }
    CHECK_OUT(rl_is_locked(&t.ctx, "db:k", 4, &call), RL_YES);
    CHECK_OUT(rl_release(&t.ctx, "db:k", 4, info.token, &call), RL_RELEASED);
    CHECK_EQ(echo_all(&t, "sync", res), NNODES);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(admin_int(i, 7, "EXISTS db:k"), 0);
    tnet_close(&t);

    /* a database the server does not have: RL_E_AUTH ("SELECT failed") */
    REQUIRE(tnet_open_fmt(&t, 0, 1, "redis://127.0.0.1:%d/999999") == 0);
    CHECK_EQ(echo_all(&t, "x", res), 0);
    CHECK_EQ(res[0].err, RL_E_AUTH);
    CHECK(contains(res[0].reason, "SELECT"));
    tnet_close(&t);
    /* ... and the SET queued behind the refused SELECT never runs in db 0 */
    REQUIRE(tnet_open_fmt(&t, 0, NNODES, "redis://127.0.0.1:%d/999999") == 0);
    CHECK_OUT(rl_acquire(&t.ctx, "db:gate", 7, 10000, &o, &info, &call), RL_NO_QUORUM);
    for (int i = 0; i < NNODES; i++) {
        /* the call decides once a quorum has failed: the rest may be pending */
        if (call.res[i].state == RL_FAILED) CHECK_EQ(call.res[i].err, RL_E_AUTH);
        CHECK_EQ(admin_int(i, 0, "EXISTS db:gate"), 0);
    }
    tnet_close(&t);
}

/* SCRIPT FLUSH between calls: EVALSHA gets NOSCRIPT and falls back to EVAL. */
static void test_net_script_flush(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    REQUIRE(tnet_open(&t, NNODES) == 0);
    CHECK_OUT(rl_acquire(&t.ctx, "flush:k", 7, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK_EQ(echo_all(&t, "sync", res), NNODES);
    for (int i = 0; i < NNODES; i++) CHECK(admin_ok(i, "SCRIPT FLUSH", NULL));
    CHECK_OUT(rl_extend(&t.ctx, "flush:k", 7, info.token, 30000, 0.01, &info, &call), RL_EXTENDED);
    check_answers(&call, NNODES, RL_REPLY_INTEGER, 1, "extend after flush");
    CHECK_EQ(echo_all(&t, "sync", res), NNODES);
    for (int i = 0; i < NNODES; i++) {
        long long pttl = admin_int(i, 0, "PTTL flush:k");
        CHECK(pttl > 20000);
    }
    for (int i = 0; i < NNODES; i++) CHECK(admin_ok(i, "SCRIPT FLUSH", NULL));
    CHECK_OUT(rl_release(&t.ctx, "flush:k", 7, info.token, &call), RL_RELEASED);
    check_answers(&call, NNODES, RL_REPLY_INTEGER, 1, "release after flush");
    CHECK_EQ(echo_all(&t, "sync", res), NNODES);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(admin_int(i, 0, "EXISTS flush:k"), 0);
    /* a wrong token after a flush: still not ours */
    CHECK_OUT(rl_acquire(&t.ctx, "flush:k", 7, 10000, &o, &info, &call), RL_ACQUIRED);
    for (int i = 0; i < NNODES; i++) CHECK(admin_ok(i, "SCRIPT FLUSH", NULL));
    CHECK_OUT(rl_release(&t.ctx, "flush:k", 7, "0000000000000000000000000000000000000000", &call), RL_LOST);
    check_answers(&call, NNODES, RL_REPLY_INTEGER, 0, "release with a wrong token");
    CHECK_OUT(rl_release(&t.ctx, "flush:k", 7, info.token, &call), RL_RELEASED);
    tnet_close(&t);
}

static void test_net_unix_socket(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    char fmt[200], sock[128];
    node_sock_path(3, sock, sizeof(sock));
    snprintf(fmt, sizeof(fmt), "unix://%s", sock); /* no %d: the port is ignored */
    REQUIRE(tnet_open_fmt(&t, 3, 1, fmt) == 0);
    CHECK_EQ(echo_all(&t, "via-unix", res), 1);
    CHECK_OUT(rl_acquire(&t.ctx, "unix:k", 6, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK_EQ(admin_int(3, 0, "EXISTS unix:k"), 1);
    CHECK_OUT(rl_release(&t.ctx, "unix:k", 6, info.token, &call), RL_RELEASED);
    tnet_close(&t);
    /* a socket path nobody listens on */
    snprintf(fmt, sizeof(fmt), "unix://%s/nobody.sock", g_dir);
    REQUIRE(tnet_open_fmt(&t, 3, 1, fmt) == 0);
    CHECK_EQ(echo_all(&t, "x", res), 0);
    CHECK_EQ(res[0].err, RL_E_REFUSED);
    tnet_close(&t);
}

/* rl_conn_check sees a connection the server closed; a call on it reconnects. */
static void test_net_conn_check(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    const int C = 3;
    REQUIRE(tnet_open_fmt(&t, C, 1, "127.0.0.1:%d") == 0);
    CHECK(!rl_conn_is_open(t.conns[0]));
    CHECK_EQ(rl_conn_check(t.conns[0]), 0);
    CHECK_EQ(echo_all(&t, "open", res), 1);
    CHECK(rl_conn_is_open(t.conns[0]));
    CHECK_EQ(rl_conn_check(t.conns[0]), 1);
    CHECK_STR(rl_conn_conf(t.conns[0])->host, "127.0.0.1");

    CHECK(admin_int(C, 0, "CLIENT KILL TYPE normal SKIPME yes") >= 1);
    int closed = 0;
    for (int k = 0; k < 200 && !closed; k++) {
        closed = rl_conn_check(t.conns[0]) == 0;
        if (!closed) msleep(10);
    }
    CHECK(closed);
    CHECK(!rl_conn_is_open(t.conns[0]));
    CHECK_EQ(echo_all(&t, "reopened", res), 1);
    CHECK_EQ(rl_conn_stats(t.conns[0])->connects, 2);

    /* killed under it without a check: the call reconnects by itself */
    CHECK(admin_int(C, 0, "CLIENT KILL TYPE normal SKIPME yes") >= 1);
    msleep(20);
    CHECK_EQ(echo_all(&t, "transparent", res), 1);
    CHECK_EQ(rl_conn_stats(t.conns[0])->connects, 3);

    /* rl_conn_close keeps stats, the next call opens again */
    rl_conn_close(t.conns[0]);
    CHECK(!rl_conn_is_open(t.conns[0]));
    CHECK_EQ(echo_all(&t, "again", res), 1);
    CHECK_EQ(rl_conn_stats(t.conns[0])->connects, 4);
    tnet_close(&t);
}

/* A connection inherited through fork() is never used by the child; the
 * parent's stays intact. */
static void test_net_fork(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    REQUIRE(tnet_open_fmt(&t, 0, 1, "127.0.0.1:%d") == 0);
    CHECK_EQ(echo_all(&t, "parent", res), 1);
    fflush(stdout);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        alarm(10);
        int ok = rl_conn_check(t.conns[0]) == 0; /* inherited: closed */
        ok &= echo_all(&t, "child", res) == 1;   /* with a connection of its own */
        ok &= rl_conn_stats(t.conns[0])->connects == 2;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ(echo_all(&t, "parent-again", res), 1);
    CHECK_EQ(rl_conn_stats(t.conns[0])->connects, 1);
    tnet_close(&t);
}

/* The reply of a big value is read whole, a huge one is refused. */
static void test_net_reply_sizes(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    REQUIRE(tnet_open_fmt(&t, 0, 1, "127.0.0.1:%d") == 0);
    static char big[RL_REPLY_MAX * 2];
    memset(big, 'b', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    big[1000] = '\0';
    CHECK_EQ(echo_all(&t, big, res), 0); /* only the first sizeof(str) - 1 bytes are kept */
    CHECK_EQ(res[0].state, RL_ANSWERED);
    CHECK_EQ(res[0].reply.len, 1000);
    CHECK_EQ(strlen(res[0].reply.str), sizeof(res[0].reply.str) - 1);
    big[1000] = 'b';
    CHECK_EQ(echo_all(&t, big, res), 0);
    CHECK_EQ(res[0].state, RL_FAILED);
    CHECK_EQ(res[0].err, RL_E_PROTO);
    CHECK_EQ(echo_all(&t, "small-again", res), 1);
    tnet_close(&t);
}

/* A release overtaken by the decision on a node that lost its scripts: the
 * late NOSCRIPT is answered by loading them and sending the EVALSHA again,
 * so the node's copy of the lock is deleted too. */
/* drains t (what request end does) until node P no longer has key; bounded */
static int drain_until_gone(tnet *t, int P, const char *key)
{
    for (int k = 0; k < 100; k++) {
        rl_net_drain(&t->net, 100000);
        if (admin_int(P, 0, "EXISTS %s", key) == 0) return 1;
        msleep(10);
    }
    return 0;
}

static void test_net_late_noscript_release(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    const int P = 3;
    REQUIRE(tnet_open(&t, NNODES) == 0);
    CHECK_OUT(rl_acquire(&t.ctx, "late:k", 6, 30000, &o, &info, &call), RL_ACQUIRED);
    CHECK_EQ(echo_all(&t, "sync", res), NNODES);
    REQUIRE(admin_int(P, 0, "EXISTS late:k") == 1);
    CHECK(admin_ok(P, "SCRIPT FLUSH", NULL));
    node_pause(P);
    CHECK_OUT(rl_release(&t.ctx, "late:k", 6, info.token, &call), RL_RELEASED);
    CHECK_EQ(call.res[P].state, RL_PENDING);
    CHECK_EQ(rl_conn_late_scripts(t.conns[P]), 1);
    node_resume(P);
    /* request end: drain reads the NOSCRIPT, reloads, resends; bounded */
    CHECK(drain_until_gone(&t, P, "late:k"));
    CHECK_EQ(rl_conn_late_scripts(t.conns[P]), 0);
    CHECK_EQ(echo_all(&t, "after", res), NNODES);

    /* the same through the next call instead of a drain */
    CHECK_OUT(rl_acquire(&t.ctx, "late:k2", 7, 30000, &o, &info, &call), RL_ACQUIRED);
    CHECK_EQ(echo_all(&t, "sync", res), NNODES);
    CHECK(admin_ok(P, "SCRIPT FLUSH", NULL));
    node_pause(P);
    CHECK_OUT(rl_release(&t.ctx, "late:k2", 7, info.token, &call), RL_RELEASED);
    node_resume(P);
    int gone = 0;
    for (int k = 0; k < 100 && !gone; k++) {
        char pl[16];
        snprintf(pl, sizeof(pl), "pump%d", k);
        CHECK_EQ(echo_all(&t, pl, res), NNODES);
        gone = admin_int(P, 0, "EXISTS late:k2") == 0;
        if (!gone) msleep(10);
    }
    CHECK(gone);
    tnet_close(&t);
}

/* A release that timed out (every node slow: no early decision) and then
 * meets NOSCRIPT (SCRIPT FLUSH before the node ran it) is sent again like a
 * late one: the key must not stay for its TTL (issue 19, item 8). */
static void test_net_timed_out_noscript_release(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    const int P = 3;
    REQUIRE(tnet_open_fmt(&t, P, 1, "127.0.0.1:%d") == 0);
    rl_conn_set_timeouts(t.conns[0], 1000, 100);
    CHECK_OUT(rl_acquire(&t.ctx, "tmo:k", 5, 30000, &o, &info, &call), RL_ACQUIRED);
    CHECK(admin_ok(P, "SCRIPT FLUSH", NULL));
    node_pause(P);
    CHECK_OUT(rl_release(&t.ctx, "tmo:k", 5, info.token, &call), RL_NO_QUORUM);
    CHECK_EQ(call.res[0].err, RL_E_TIMEOUT);
    node_resume(P);
    CHECK(drain_until_gone(&t, P, "tmo:k"));
    CHECK_EQ(rl_conn_late_scripts(t.conns[0]), 0);
    CHECK_EQ(echo_all(&t, "after", res), 1);
    admin_int(P, 0, "DEL tmo:k");
    tnet_close(&t);
}

/* A SET by script (a waiter's attempt) overtaken by the decision meets
 * NOSCRIPT (SCRIPT FLUSH); meanwhile another client loaded the scripts again
 * (any new connection does) and the failed attempt's release ran, finding
 * nothing. The SET must not be sent again: it would land after its release,
 * the key orphaned for its TTL. */
static void test_net_late_noscript_set_not_resent(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_cmd set, rel;
    const int P = 3;
    const char *token = "0123456789abcdef0123456789abcdef01234567";
    const char *sa[7] = {"EVALSHA", rl_script_acquire_sha, "1", "late:set", token, "30000", "0"};
    const char *ra[5] = {"EVALSHA", rl_script_release_sha, "1", "late:set", token};
    REQUIRE(tnet_open_fmt(&t, P, 1, "127.0.0.1:%d") == 0);
    CHECK_EQ(echo_all(&t, "warm", res), 1);
    memset(&set, 0, sizeof(set));
    memset(&rel, 0, sizeof(rel));
    for (int k = 0; k < 7; k++) arg_push(&set, sa[k]);
    for (int k = 0; k < 5; k++) arg_push(&rel, ra[k]);
    set.script = rl_script_acquire;
    set.op = RL_OP_SET;
    set.tag = rl_lock_tag("late:set", 8, token, strlen(token));
    set.nowait = 1; /* overtaken by the decision, like a pending node's */
    rel.script = rl_script_release;
    rel.op = RL_OP_RELEASE;
    rel.tag = set.tag;
    rel.nowait = 1; /* the failed attempt's release, queued behind it */
    CHECK(admin_ok(P, "SCRIPT FLUSH", NULL));
    CHECK_EQ(rl_net_fanout(&t.net, &set, res, 1, NULL, NULL), 0);
    msleep(50); /* P answered NOSCRIPT; the reply waits unread */
    redisReply *r = admin(P, 0, "SCRIPT LOAD %s", rl_script_release);
    REQUIRE(r && r->type == REDIS_REPLY_STRING);
    freeReplyObject(r);
    CHECK_EQ(rl_net_fanout(&t.net, &rel, res, 1, NULL, NULL), 0);
    for (int k = 0; k < 20 && rl_conn_busy(t.conns[0]); k++) rl_net_drain(&t.net, 100000);
    CHECK(!rl_conn_busy(t.conns[0]));
    CHECK_EQ(echo_all(&t, "after", res), 1);
    CHECK_EQ(admin_int(P, 0, "EXISTS late:set"), 0);
    admin_int(P, 0, "DEL late:set");
    tnet_close(&t);
}

/* A new connection whose SELECT was overtaken by an early decision: the
 * drain at request end reads the SELECT reply; the commands gated behind it
 * must still go out, so the connection keeps working afterwards. */
static void test_net_drain_after_handshake(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_call call;
    const int P = 0;
    REQUIRE(tnet_open_fmt(&t, 0, 3, "redis://127.0.0.1:%d/2") == 0);
    node_pause(P); /* its connect is accepted by the kernel, SELECT waits */
    CHECK_OUT(rl_is_locked(&t.ctx, "gate:k", 6, &call), RL_NO);
    /* the first call waits for the server identity of the connections it
     * opened (docs/api.md "Nodes"), so the paused node timed out */
    CHECK_EQ(call.res[P].state, RL_FAILED);
    CHECK_EQ(call.res[P].err, RL_E_TIMEOUT);
    node_resume(P);
    uint64_t t0 = mono_us();
    rl_net_drain(&t.net, 500000);
    uint64_t el = mono_us() - t0;
    if (el > 300000)
        check_failf(__FILE__, __LINE__, "drain waited %llu us for replies never asked", (unsigned long long)el);
    CHECK_EQ(echo_all(&t, "after-drain", res), 3);
    if (!reply_is(&res[P], RL_REPLY_STRING, "after-drain")) describe("after-drain", res, 3);
    tnet_close(&t);
}

/* Timeouts belong to the caller and can change on a live connection. */
static void test_net_set_timeouts(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    const int P = 2;
    REQUIRE(tnet_open_fmt(&t, P, 1, "127.0.0.1:%d") == 0);
    CHECK_EQ(echo_all(&t, "x", res), 1);
    rl_conn_set_timeouts(t.conns[0], 100, 150);
    CHECK_EQ(rl_conn_conf(t.conns[0])->timeout_ms, 150);
    node_pause(P);
    uint64_t t0 = mono_us();
    CHECK_EQ(echo_all(&t, "slow", res), 0);
    uint64_t el = mono_us() - t0;
    node_resume(P);
    CHECK_EQ(res[0].err, RL_E_TIMEOUT);
    CHECK(el >= 140000 && el < 600000);
    rl_conn_set_timeouts(t.conns[0], NET_TIMEOUT_MS, NET_TIMEOUT_MS);
    CHECK_EQ(echo_all(&t, "fast", res), 1);
    tnet_close(&t);
}

/* A node that answers one command with two replies must not have the extra
 * one taken as the answer to the next command. */
static void test_net_hostile_extra_reply(void)
{
    NET_REQUIRE_NODES(); /* for g_dir */
    char hs[4096];
    const char *const answers[] = {hs_replies(hs, sizeof(hs), ":1\r\n:999\r\n"), ":0\r\n"};
    scripted srv;
    tnet t;
    rl_result res[1];
    REQUIRE(scripted_start(&srv, answers, 2) == 0);
    char fmt[160];
    snprintf(fmt, sizeof(fmt), "unix://%s", srv.path);
    if (tnet_open_fmt(&t, 0, 1, fmt) == 0) {
        rl_cmd cmd;
        memset(&cmd, 0, sizeof(cmd));
        cmd.argc = 2;
        cmd.argv[0] = "EXISTS";
        cmd.argvlen[0] = 6;
        cmd.argv[1] = "k";
        cmd.argvlen[1] = 1;
        CHECK_EQ(rl_net_fanout(&t.net, &cmd, res, 1, NULL, NULL), 0);
        CHECK(reply_is(&res[0], RL_REPLY_INTEGER, NULL) && res[0].reply.integer == 1);
        rl_conn_check(t.conns[0]);
        CHECK_EQ(rl_net_fanout(&t.net, &cmd, res, 1, NULL, NULL), 0);
        /* acceptable: the true answer (0), or a failure; never the stray 999 */
        if (res[0].state == RL_ANSWERED && res[0].reply.integer != 0)
            check_failf(__FILE__, __LINE__, "second command answered with the stray reply: %lld", res[0].reply.integer);
        tnet_close(&t);
    }
    scripted_stop(&srv);
}

/* Issue 22: a connection given up as unreachable is replaced in the
 * background; a release sent meanwhile waits behind the new connection's PING
 * gate and lands; the node is used again. (The silent partition itself is
 * made in tests/harness/netfault: here the abandon is called directly.) */
static void test_net_abandon_replays_release(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    const int P = 2;
    REQUIRE(tnet_open(&t, NNODES) == 0);
    CHECK_OUT(rl_acquire(&t.ctx, "abd:K", 5, 60000, &o, &info, &call), RL_ACQUIRED);
    CHECK_EQ(admin_int(P, 0, "EXISTS abd:K"), 1);
    /* paused: the new connection is accepted by the kernel, its PING waits
     * (on a running loopback node the gate could open within the release) */
    node_pause(P);
    rlc_abandon(t.conns[P], mono_us());
    CHECK(t.conns[P]->probing);
    CHECK_OUT(rl_release(&t.ctx, "abd:K", 5, info.token, &call), RL_RELEASED);
    CHECK_EQ(call.res[P].state, RL_FAILED); /* not yet through its gate: not counted */
    CHECK(strstr(call.res[P].reason, "unreachable") != NULL);
    CHECK(t.conns[P]->owe_n >= 1);
    node_resume(P);
    rl_net_drain(&t.net, 2000000);
    long long left = wait_dbsize_zero(P, 0, 2000);
    if (left != 0) {
        redisReply *k = admin(P, 0, "KEYS *");
        check_failf(__FILE__, __LINE__, "node %d kept %lld keys (%s...), last_error %s", P, left,
                    k && k->type == REDIS_REPLY_ARRAY && k->elements ? k->element[0]->str : "?",
                    rl_conn_stats(t.conns[P])->last_error);
        if (k) freeReplyObject(k);
    }
    CHECK(!t.conns[P]->probing);
    CHECK_EQ(t.conns[P]->owe_n, 0);
    CHECK_EQ(rl_conn_stats(t.conns[P])->connects, 2);
    CHECK_EQ(echo_all(&t, "after", res), NNODES);
    tnet_close(&t);
}

/* A node in back-off after a refused AUTH reports an authentication
 * failure, not a connect failure. */
static void test_net_auth_backoff_reason(void)
{
    NET_REQUIRE_NODES();
    const int A = 2;
    tnet t;
    rl_result res[RL_MAX_NODES];
    char u0[64], u1[64], u2[96];
    snprintf(u0, sizeof(u0), "127.0.0.1:%d", g_node[0].port);
    snprintf(u1, sizeof(u1), "127.0.0.1:%d", g_node[1].port);
    REQUIRE(admin_ok(A, "CONFIG SET requirepass %s", "Pw-Right-78"));
    snprintf(g_node[A].pw, sizeof(g_node[A].pw), "%s", "Pw-Right-78");
    snprintf(u2, sizeof(u2), "redis://:Wrong-Secret-43@127.0.0.1:%d", g_node[A].port);
    const char *uris[3] = {u0, u1, u2};
    REQUIRE(tnet_open_uris(&t, 3, uris, NET_TIMEOUT_MS) == 0);
    CHECK_EQ(echo_all(&t, "x", res), 2);
    CHECK_EQ(res[2].err, RL_E_AUTH);
    CHECK_EQ(echo_all(&t, "y", res), 2);
    CHECK_EQ(res[2].err, RL_E_AUTH); /* skipped in back-off, same reason */
    CHECK(contains(res[2].reason, "back-off") && contains(res[2].reason, "AUTH"));
    if (contains(res[2].reason, "Secret") || contains(res[2].reason, "Pw-Right"))
        check_failf(__FILE__, __LINE__, "reason leaks a password: %s", res[2].reason);
    tnet_close(&t);
    admin_ok(A, "CONFIG SET requirepass %s", "");
    g_node[A].pw[0] = '\0';
}

static const test_case tests[] = {
    {"owe_state", test_owe_state},
    {"net_restart_reconnect", test_net_restart_reconnect},
    {"net_refused_backoff", test_net_refused_backoff},
    {"net_auth", test_net_auth},
    {"net_select_db", test_net_select_db},
    {"net_script_flush", test_net_script_flush},
    {"net_unix_socket", test_net_unix_socket},
    {"net_conn_check", test_net_conn_check},
    {"net_fork", test_net_fork},
    {"net_reply_sizes", test_net_reply_sizes},
    {"net_late_noscript_release", test_net_late_noscript_release},
    {"net_timed_out_noscript_release", test_net_timed_out_noscript_release},
    {"net_late_noscript_set_not_resent", test_net_late_noscript_set_not_resent},
    {"net_set_timeouts", test_net_set_timeouts},
    {"net_hostile_extra_reply", test_net_hostile_extra_reply},
    {"net_drain_after_handshake", test_net_drain_after_handshake},
    {"net_abandon_replays_release", test_net_abandon_replays_release},
    {"net_auth_backoff_reason", test_net_auth_backoff_reason},
};

const test_suite conn_suite = {tests, N_TESTS(tests)};
