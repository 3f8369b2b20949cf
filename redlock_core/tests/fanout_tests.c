/* fanout_tests.c -- the socket fan-out (rl_fanout.c, rl_net_fanout) against
 * real redis-server processes (tests/nodes_fixture.h): one command to every
 * node, the decision at quorum, a paused node's late replies, the command
 * encoded once; safety under stalls and faults (what a lock reports is true,
 * no release is ever lost); the same server twice. A suite of build/unit_tests. */
#define _GNU_SOURCE
#include "rl_conn_struct.h"
#include "rl_conn_test.h"
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/nodes_fixture.h"
#include "tests/unit_tests.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_net_basic(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info, info2;
    rl_call call;
    rl_opts o = ONE_TRY;
    REQUIRE(tnet_open(&t, NNODES) == 0);

    CHECK_EQ(echo_all(&t, "hello", res), NNODES);
    CHECK_OUT(rl_acquire(&t.ctx, "basic:k", 7, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK(info.ok >= 3);
    CHECK(info.validity_ms > 9000 && info.validity_ms <= 10000 - 102);
    CHECK(is_lower_hex_token(info.token));
    check_answers(&call, NNODES, RL_REPLY_STATUS, 0, "SET");
    for (int i = 0; i < NNODES; i++) {
        if (call.res[i].state != RL_ANSWERED) continue;
        redisReply *r = admin(i, 0, "GET basic:k");
        CHECK(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, info.token) == 0);
        if (r) freeReplyObject(r);
        long long pttl = admin_int(i, 0, "PTTL basic:k");
        CHECK(pttl > 9000 && pttl <= 10000);
    }
    /* a second owner conflicts, and undoing its attempt leaves ours alone */
    CHECK_OUT(rl_acquire(&t.ctx, "basic:k", 7, 10000, &o, &info2, &call), RL_CONFLICT);
    check_answers(&call, NNODES, RL_REPLY_NIL, 0, "SET conflicting");
    CHECK(strcmp(info.token, info2.token) != 0);
    CHECK_OUT(rl_is_locked(&t.ctx, "basic:k", 7, &call), RL_YES);
    check_answers(&call, NNODES, RL_REPLY_INTEGER, 1, "EXISTS");
    /* the lock is still ours everywhere (wait for the stragglers to catch up) */
    CHECK_EQ(echo_all(&t, "sync", res), NNODES);
    for (int i = 0; i < NNODES; i++) {
        redisReply *r = admin(i, 0, "GET basic:k");
        CHECK(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, info.token) == 0);
        if (r) freeReplyObject(r);
    }
    CHECK_OUT(rl_extend(&t.ctx, "basic:k", 7, info.token, 20000, 0.01, &info, &call), RL_EXTENDED);
    check_answers(&call, NNODES, RL_REPLY_INTEGER, 1, "extend");
    CHECK(admin_int(0, 0, "PTTL basic:k") > 10000 || call.res[0].state != RL_ANSWERED);
    CHECK_OUT(rl_extend(&t.ctx, "basic:k", 7, info2.token, 20000, 0.01, &info2, &call), RL_LOST);
    CHECK_OUT(rl_release(&t.ctx, "basic:k", 7, info2.token, &call), RL_LOST);
    CHECK_OUT(rl_release(&t.ctx, "basic:k", 7, info.token, &call), RL_RELEASED);
    check_answers(&call, NNODES, RL_REPLY_INTEGER, 1, "release");
    CHECK_OUT(rl_release(&t.ctx, "basic:k", 7, info.token, &call), RL_LOST);
    CHECK_OUT(rl_is_locked(&t.ctx, "basic:k", 7, &call), RL_NO);
    check_answers(&call, NNODES, RL_REPLY_INTEGER, 0, "EXISTS");
    CHECK_EQ(echo_all(&t, "sync2", res), NNODES);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(admin_int(i, 0, "EXISTS basic:k"), 0);

    /* the scripts' SHA1s are the ones redis computes (every script of the table) */
    for (size_t k = 0; k < RL_SCRIPTS_N; k++) {
        redisReply *r = admin(0, 0, "SCRIPT LOAD %b", rl_scripts[k].text, rl_scripts[k].len);
        CHECK(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, rl_scripts[k].sha) == 0);
        if (r && (r->type != REDIS_REPLY_STRING || strcmp(r->str, rl_scripts[k].sha) != 0))
            printf("      script %s: %s\n", rl_scripts[k].name, r->str);
        if (r) freeReplyObject(r);
    }

    /* stats */
    for (int i = 0; i < NNODES; i++) {
        const rl_node_stats *st = rl_conn_stats(t.conns[i]);
        CHECK(st->ok >= 3);
        CHECK_EQ(st->connects, 1);
        CHECK(st->lat.count == st->ok);
        CHECK(rl_conn_is_open(t.conns[i]));
        CHECK(rl_conn_check(t.conns[i]));
    }
    /* a fan-out over more nodes than the net has is refused */
    rl_cmd cmd;
    memset(&cmd, 0, sizeof(cmd));
    cmd.argc = 1;
    cmd.argv[0] = "PING";
    cmd.argvlen[0] = 4;
    CHECK_EQ(rl_net_fanout(&t.net, &cmd, res, NNODES + 1, NULL, NULL), -1);
    tnet_close(&t);
}

/* One node stopped (SIGSTOP): the calls decide on the healthy majority and
 * return at once; once it is back its late replies are read and dropped,
 * never taken for the answers of later commands. */
static void test_net_paused_node(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    const int P = 1;
    REQUIRE(tnet_open(&t, NNODES) == 0);
    CHECK_EQ(echo_all(&t, "warm", res), NNODES);

    node_pause(P);
    uint64_t t0 = mono_us();
    CHECK_OUT(rl_acquire(&t.ctx, "pause:k", 7, 10000, &o, &info, &call), RL_ACQUIRED);
    uint64_t el = mono_us() - t0;
    if (el > 300000) check_failf(__FILE__, __LINE__, "acquire with a paused node took %llu us", (unsigned long long)el);
    CHECK_EQ(call.res[P].state, RL_PENDING);
    CHECK(info.validity_ms > 9000);
    t0 = mono_us();
    CHECK_OUT(rl_is_locked(&t.ctx, "pause:k", 7, &call), RL_YES);
    CHECK_OUT(rl_is_locked(&t.ctx, "pause:other", 11, &call), RL_NO);
    CHECK_OUT(rl_extend(&t.ctx, "pause:k", 7, info.token, 10000, 0.01, &info, &call), RL_EXTENDED);
    CHECK_OUT(rl_release(&t.ctx, "pause:k", 7, info.token, &call), RL_RELEASED);
    el = mono_us() - t0;
    if (el > 600000) check_failf(__FILE__, __LINE__, "4 calls with a paused node took %llu us", (unsigned long long)el);
    CHECK_EQ(call.res[P].state, RL_PENDING);

    /* waiting for everyone: the paused node times out, the rest answer */
    t0 = mono_us();
    CHECK_EQ(echo_all(&t, "while-paused", res), NNODES - 1);
    el = mono_us() - t0;
    CHECK_EQ(res[P].state, RL_FAILED);
    CHECK_EQ(res[P].err, RL_E_TIMEOUT);
    CHECK(el >= (NET_TIMEOUT_MS - 50) * 1000u && el < (NET_TIMEOUT_MS + 500) * 1000u);
    CHECK(rl_conn_stats(t.conns[P])->timeouts >= 1);

    node_resume(P);
    msleep(50); /* let the late replies arrive: they sit in the socket now */

    int bad_echo = 0;
    for (int i = 0; i < 10; i++) {
        char key[32], payload[32];
        rl_lock_info li;
        snprintf(key, sizeof(key), "mix:%d", i);
        CHECK_OUT(rl_acquire(&t.ctx, key, strlen(key), 10000, &o, &li, &call), RL_ACQUIRED);
        check_answers(&call, NNODES, RL_REPLY_STATUS, 0, "SET after resume");
        CHECK_OUT(rl_is_locked(&t.ctx, key, strlen(key), &call), RL_YES);
        check_answers(&call, NNODES, RL_REPLY_INTEGER, 1, "EXISTS after resume");
        CHECK_OUT(rl_is_locked(&t.ctx, "mix:none", 8, &call), RL_NO);
        check_answers(&call, NNODES, RL_REPLY_INTEGER, 0, "EXISTS none after resume");
        CHECK_OUT(rl_release(&t.ctx, key, strlen(key), li.token, &call), RL_RELEASED);
        check_answers(&call, NNODES, RL_REPLY_INTEGER, 1, "release after resume");
        snprintf(payload, sizeof(payload), "echo-%d", i);
        int good = echo_all(&t, payload, res);
        if (good != NNODES) {
            bad_echo++;
            describe(payload, res, NNODES);
        }
    }
    CHECK_EQ(bad_echo, 0);
    /* the late SET reached the node, and so did the release queued behind it */
    CHECK_EQ(admin_int(P, 0, "EXISTS pause:k"), 0);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(admin_int(i, 0, "DBSIZE"), 0);
    CHECK_EQ(rl_conn_stats(t.conns[P])->connects, 1); /* the same connection all along */

    /* many calls decided without the paused node: its backlog of late
     * replies grows past what is worth waiting for, and it starts afresh */
    node_pause(P);
    for (int i = 0; i < 40; i++) CHECK_OUT(rl_is_locked(&t.ctx, "backlog", 7, &call), RL_NO);
    node_resume(P);
    msleep(50);
    CHECK_EQ(echo_all(&t, "after-backlog", res), NNODES);
    CHECK_EQ(echo_all(&t, "after-backlog-2", res), NNODES);

    /* drain: read the late replies before closing */
    node_pause(P);
    CHECK_OUT(rl_is_locked(&t.ctx, "drain", 5, &call), RL_NO);
    node_resume(P);
    t0 = mono_us();
    rl_net_drain(&t.net, 2000000);
    CHECK(mono_us() - t0 < 1500000);
    CHECK_EQ(echo_all(&t, "after-drain", res), NNODES);
    tnet_close(&t);
}

/* A fan-out encodes its command once for every node (a 2048-byte buffer in
 * rl_net_fanout) and encodes per node what does not fit: SETs of values
 * whose encoding ends just under, at and just over that size, and far over
 * it, land byte for byte on every node (length, first and last bytes). */
static void test_net_encoded_once(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    REQUIRE(tnet_open(&t, NNODES) == 0);
    static char val[10001];
    for (size_t i = 0; i < sizeof(val) - 1; i++) val[i] = (char)('a' + i % 26);
    static const size_t sizes[] = {1, 1000, 2000, 2004, 2008, 2012, 2016, 2020, 2024, 2028, 2032, 2036, 2040, 10000};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t len = sizes[k];
        rl_cmd cmd;
        memset(&cmd, 0, sizeof(cmd));
        arg_push(&cmd, "SET");
        arg_push(&cmd, "enc:k");
        cmd.argv[2] = val;
        cmd.argvlen[2] = len;
        cmd.argc = 3;
        REQUIRE(rl_net_fanout(&t.net, &cmd, res, t.n, NULL, NULL) == 0);
        int ok = 0;
        for (int i = 0; i < t.n; i++) ok += reply_is(&res[i], RL_REPLY_STATUS, "OK");
        CHECK_EQ(ok, t.n);
        for (int i = 0; i < t.n; i++) CHECK_EQ(admin_int(i, 0, "STRLEN enc:k"), (long long)len);
        char first[11] = {0}, last[11] = {0};
        size_t fl = len < 10 ? len : 10;
        memcpy(first, val, fl);
        memcpy(last, val + len - fl, fl);
        memset(&cmd, 0, sizeof(cmd));
        char from[24], to[24];
        snprintf(from, sizeof(from), "%zu", len - fl);
        snprintf(to, sizeof(to), "%zu", len - 1);
        arg_push(&cmd, "GETRANGE");
        arg_push(&cmd, "enc:k");
        arg_push(&cmd, from);
        arg_push(&cmd, to);
        REQUIRE(rl_net_fanout(&t.net, &cmd, res, t.n, NULL, NULL) == 0);
        ok = 0;
        for (int i = 0; i < t.n; i++) ok += reply_is(&res[i], RL_REPLY_STRING, last);
        CHECK_EQ(ok, t.n);
        cmd.argv[2] = "0";
        cmd.argvlen[2] = 1;
        snprintf(to, sizeof(to), "%zu", fl - 1);
        cmd.argvlen[3] = strlen(to);
        REQUIRE(rl_net_fanout(&t.net, &cmd, res, t.n, NULL, NULL) == 0);
        ok = 0;
        for (int i = 0; i < t.n; i++) ok += reply_is(&res[i], RL_REPLY_STRING, first);
        CHECK_EQ(ok, t.n);
    }
    for (int i = 0; i < t.n; i++) admin_int(i, 0, "DEL enc:k");
    tnet_close(&t);
}

/* ======================================================================
 * safety under stalls and faults (issue: what a lock reports is true, no
 * release is ever lost)
 * ====================================================================== */
/* 3 nodes, warmed up; node P paused; then lock/release cycles: every SET
 * that reached P's socket is followed there by its release, in order, on
 * the same connection; nothing is left on P once it catches up. */
static int stalled_cycles(tnet *t, int P, int cycles, const char *prefix)
{
    rl_result res[RL_MAX_NODES];
    rl_lock_info li;
    rl_call call;
    rl_opts o = ONE_TRY;
    int bad = 0;
    if (tnet_open_fmt(t, 0, 3, "127.0.0.1:%d") != 0) return -1;
    /* P's short timeout makes the cycles quick; the two others answer every
     * call's quorum, so a loaded machine must not time them out */
    for (int i = 0; i < 3; i++) rl_conn_set_timeouts(t->conns[i], 200, i == P ? 50 : 2000);
    CHECK_EQ(echo_all(t, "warm", res), 3);
    node_pause(P);
    for (int i = 0; i < cycles; i++) {
        char key[64];
        snprintf(key, sizeof(key), "%s:%d", prefix, i);
        bad += rl_acquire(&t->ctx, key, strlen(key), 60000, &o, &li, &call) != RL_ACQUIRED;
        bad += rl_release(&t->ctx, key, strlen(key), li.token, &call) != RL_RELEASED;
    }
    CHECK_EQ(bad, 0);
    return 0;
}

/* A release must never be overtaken by an older SET still queued at a
 * stalled node (a fresh connection would let Redis run it first). */
static void test_net_release_not_overtaken(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    const int P = 2;
    REQUIRE(stalled_cycles(&t, P, 120, "ovt") == 0);
    CHECK_OUT(rl_acquire(&t.ctx, "ovt:K", 5, 60000, &o, &info, &call), RL_ACQUIRED);
    msleep(2100); /* P's oldest reply is now older than 2 s: stalled */
    CHECK_OUT(rl_release(&t.ctx, "ovt:K", 5, info.token, &call), RL_RELEASED);
    node_resume(P);
    rl_net_drain(&t.net, 3000000); /* P has run everything we sent */
    CHECK(!rl_conn_busy(t.conns[P]));
    long long left = wait_dbsize_zero(P, 0, 3000);
    if (left != 0)
        check_failf(__FILE__, __LINE__, "node %d kept %lld keys after catching up (ovt:K pttl %lld)", P, left,
                    admin_int(P, 0, "PTTL ovt:K"));
    CHECK_EQ(rl_conn_stats(t.conns[P])->connects, 1); /* never abandoned */
    if (echo_all(&t, "after", res) != 3) {
        describe("after", res, 3);
        check_failf(__FILE__, __LINE__, "echo after catching up");
    }
    tnet_close(&t);
}

/* With hundreds of cycles the socket buffer of a paused node fills: no
 * release may be dropped from our side of it. */
static void test_net_release_not_dropped(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    const int P = 2;
    REQUIRE(stalled_cycles(&t, P, 480, "drop") == 0);
    CHECK_OUT(rl_acquire(&t.ctx, "drop:K", 6, 60000, &o, &info, &call), RL_ACQUIRED);
    CHECK_OUT(rl_release(&t.ctx, "drop:K", 6, info.token, &call), RL_RELEASED);
    /* a stalled node is spared new work, but never a release: it is queued
     * behind what the node holds (its SET may have landed there), and not
     * awaited (the call is decided at quorum) */
    CHECK_EQ(call.res[P].state, RL_PENDING);
    CHECK_EQ(call.res[P].sent, 1);
    node_resume(P);
    rl_net_drain(&t.net, 3000000); /* P has run everything we sent */
    CHECK(!rl_conn_busy(t.conns[P]));
    long long left = wait_dbsize_zero(P, 0, 3000);
    if (left != 0) check_failf(__FILE__, __LINE__, "node %d kept %lld orphaned keys", P, left);
    CHECK_EQ(echo_all(&t, "after", res), 3);
    tnet_close(&t);
}

/* The releases a connection owes are the SETs still in flight on it: a lock
 * left to its TTL (or released elsewhere, or force-released) leaves nothing
 * behind once its SET's reply was read, so nothing grows with the number of
 * locks (issue 19, item 5: one tag per lock, kept for the worker's life). A
 * SET in flight on a hung node still owes its release until one is sent. */
static void test_net_owed_releases_bounded(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    const int P = 2;
    REQUIRE(tnet_open(&t, 3) == 0);
    for (int i = 0; i < 2000; i++) {
        char key[32];
        snprintf(key, sizeof(key), "owed:%d", i);
        /* (a 1 s TTL: a 200 ms one ran out within a round trip on a loaded machine: CONFLICT) */
        CHECK_OUT(rl_acquire(&t.ctx, key, strlen(key), 1000, &o, &info, &call), RL_ACQUIRED);
        if (i % 500 == 0) CHECK_OUT(rl_force_release(&t.ctx, key, strlen(key), &call), RL_RELEASED);
    }
    CHECK_EQ(echo_all(&t, "sync", res), 3); /* every late reply read */
    for (int i = 0; i < 3; i++) CHECK_EQ(t.conns[i]->owed_n, 0);
    /* a SET that reached a hung node, unanswered: owed until its release goes */
    node_pause(P);
    CHECK_OUT(rl_acquire(&t.ctx, "owed:K", 6, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK_EQ(call.res[P].state, RL_PENDING);
    CHECK_EQ(t.conns[P]->owed_n, 1);
    CHECK_OUT(rl_release(&t.ctx, "owed:K", 6, info.token, &call), RL_RELEASED);
    CHECK_EQ(t.conns[P]->owed_n, 0);
    /* and one left to its TTL: owed until its reply is read */
    CHECK_OUT(rl_acquire(&t.ctx, "owed:L", 6, 1000, &o, &info, &call), RL_ACQUIRED);
    CHECK_EQ(t.conns[P]->owed_n, 1);
    node_resume(P);
    CHECK_EQ(echo_all(&t, "after", res), 3);
    CHECK_EQ(t.conns[P]->owed_n, 0);
    CHECK_EQ(wait_dbsize_zero(P, 0, 3000), 0);
    tnet_close(&t);
}

/* poll() failing inside a call: the replies it did not read are dropped
 * when they come, never taken for the next command's. */
static int poll_fail_once;
static int poll_failing(struct pollfd *fds, nfds_t n, int timeout_ms)
{
    if (poll_fail_once) {
        poll_fail_once = 0;
        errno = ENOMEM;
        return -1;
    }
    return poll(fds, n, timeout_ms);
}

static void test_net_poll_error(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_call call;
    REQUIRE(tnet_open(&t, 3) == 0);
    CHECK_EQ(echo_all(&t, "warm", res), 3);
    t.net.poll_fn = poll_failing;
    poll_fail_once = 1;
    CHECK_OUT(rl_is_locked(&t.ctx, "pollerr:k", 9, &call), RL_NO_QUORUM);
    for (int i = 0; i < 3; i++) CHECK_EQ(call.res[i].err, RL_E_IO);
    msleep(20); /* the unread ":0" replies are in the sockets now */
    for (int i = 0; i < 3; i++) admin_int(i, 0, "SET pollerr:k other PX 10000");
    CHECK_OUT(rl_is_locked(&t.ctx, "pollerr:k", 9, &call), RL_YES);
    check_answers(&call, 3, RL_REPLY_INTEGER, 1, "EXISTS after a poll error");
    CHECK_EQ(echo_all(&t, "after", res), 3);
    for (int i = 0; i < 3; i++) admin_int(i, 0, "DEL pollerr:k");
    tnet_close(&t);
}

/* A failed attempt queues its release and moves on: two hung nodes must not
 * make a conflict cost the full timeout. */
static void test_net_failed_attempt_no_wait(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    REQUIRE(tnet_open(&t, NNODES) == 0);
    for (int i = 0; i < NNODES; i++) rl_conn_set_timeouts(t.conns[i], 300, 300);
    CHECK_EQ(echo_all(&t, "warm", res), NNODES);
    for (int i = 0; i < 3; i++) admin_int(i, 0, "SET nowait:k other PX 10000");
    node_pause(3);
    node_pause(4);
    uint64_t t0 = mono_us();
    CHECK_OUT(rl_acquire(&t.ctx, "nowait:k", 8, 10000, &o, &info, &call), RL_CONFLICT);
    uint64_t el = mono_us() - t0;
    if (el > 100000)
        check_failf(__FILE__, __LINE__, "a conflict with 2 hung nodes took %llu us", (unsigned long long)el);
    node_resume(3);
    node_resume(4);
    rl_net_drain(&t.net, 3000000);
    /* the SET that reached the hung nodes was undone behind it */
    CHECK_EQ(wait_dbsize_zero(3, 0, 2000), 0);
    CHECK_EQ(wait_dbsize_zero(4, 0, 2000), 0);
    for (int i = 0; i < 3; i++) admin_int(i, 0, "DEL nowait:k");
    CHECK_EQ(echo_all(&t, "after", res), NNODES);
    tnet_close(&t);
}

/* A SET held behind the AUTH/SELECT gate of a node that answers after the
 * quorum decided still goes out in the same call. */
static void *resume_later(void *arg)
{
    msleep(150);
    node_resume((int)(intptr_t)arg);
    return NULL;
}

static void test_net_set_behind_gate_sent(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    const int P = 0;
    REQUIRE(tnet_open_fmt(&t, 0, 3, "redis://127.0.0.1:%d/2") == 0);
    node_pause(P); /* its connect is accepted by the kernel, SELECT waits */
    pthread_t th;
    pthread_create(&th, NULL, resume_later, (void *)(intptr_t)P);
    CHECK_OUT(rl_acquire(&t.ctx, "gate:set", 8, 10000, &o, &info, &call), RL_ACQUIRED);
    pthread_join(th, NULL);
    /* no further call: the key must reach P all the same */
    long long got = 0;
    for (int k = 0; k < 50 && got != 1; k++) {
        got = admin_int(P, 2, "EXISTS gate:set");
        if (got != 1) msleep(20);
    }
    CHECK_EQ(got, 1);
    CHECK_OUT(rl_release(&t.ctx, "gate:set", 8, info.token, &call), RL_RELEASED);
    CHECK_EQ(admin_int(P, 2, "EXISTS gate:set"), 0);
    tnet_close(&t);
}

/* After a restart of 3 of 5 nodes their back-off must not fail the call:
 * with too few other nodes for a quorum, every node is tried. */
static void test_net_backoff_keeps_quorum(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_result res[RL_MAX_NODES];
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    int port[3];
    REQUIRE(tnet_open(&t, NNODES) == 0);
    CHECK_EQ(echo_all(&t, "warm", res), NNODES);
    /* The three must be up again while still in their back-off (at most
     * BACKOFF_MAX_MS): the restart is the machine's, not the test's, so a
     * restart slower than the back-off (a loaded machine) is tried again,
     * at most 3 times, rather than testing nothing. */
    int held = 0;
    for (int round = 0; round < 3 && !held; round++) {
        for (int i = 0; i < 3; i++) {
            port[i] = g_node[i].port;
            node_stop(i, SIGTERM);
        }
        /* refused again and again: the back-off grows (bounded wait) */
        uint64_t until = mono_us() + 4000000;
        for (;;) {
            CHECK_EQ(echo_all(&t, "down", res), 2);
            int grown = 1;
            for (int i = 0; i < 3; i++) grown &= rl_conn_backoff_ms(t.conns[i]) >= 1600;
            if (grown || mono_us() > until) break;
            msleep(20);
        }
        REQUIRE(nodes_start_together(3, port) == 0);
        held = 1;
        for (int i = 0; i < 3; i++) held &= rl_conn_down_until_us(t.conns[i]) > mono_us();
    }
    /* all three are up again, but still in their back-off */
    for (int i = 0; i < 3; i++) CHECK(rl_conn_down_until_us(t.conns[i]) > mono_us());
    CHECK_OUT(rl_acquire(&t.ctx, "backoff:k", 9, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK_OUT(rl_release(&t.ctx, "backoff:k", 9, info.token, &call), RL_RELEASED);
    tnet_close(&t);
}

/* TCP and the unix socket of one server are one node: never two votes. */
static void test_net_same_server(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_lock_info info;
    rl_call call;
    rl_opts o = ONE_TRY;
    char u0[64], u1[200], u2[64];
    char sock[128];
    node_sock_path(1, sock, sizeof(sock));
    snprintf(u0, sizeof(u0), "127.0.0.1:%d", g_node[1].port);
    snprintf(u1, sizeof(u1), "unix://%s", sock);
    snprintf(u2, sizeof(u2), "127.0.0.1:%d", g_node[2].port);
    const char *uris[3] = {u0, u1, u2};
    REQUIRE(tnet_open_uris(&t, 3, uris, NET_TIMEOUT_MS) == 0);
    CHECK_OUT(rl_acquire(&t.ctx, "same:k", 6, 10000, &o, &info, &call), RL_SAME_SERVER);
    int same = 0;
    for (int i = 0; i < 3; i++) same += call.res[i].state == RL_FAILED && call.res[i].err == RL_E_SAME_SERVER;
    CHECK_EQ(same, 1);
    CHECK_EQ(rl_conn_run_id(t.conns[0])[0] != '\0', 1);
    CHECK_STR(rl_conn_run_id(t.conns[0]), rl_conn_run_id(t.conns[1]));
    /* known from now on: every later call refuses at once */
    CHECK_OUT(rl_is_locked(&t.ctx, "same:k", 6, &call), RL_SAME_SERVER);
    CHECK_OUT(rl_acquire(&t.ctx, "same:k", 6, 10000, &o, &info, &call), RL_SAME_SERVER);
    msleep(50);
    CHECK_EQ(admin_int(1, 0, "EXISTS same:k"), 0);
    tnet_close(&t);
    /* two different servers are two nodes */
    const char *two[2] = {u0, u2};
    REQUIRE(tnet_open_uris(&t, 2, two, NET_TIMEOUT_MS) == 0);
    CHECK_OUT(rl_acquire(&t.ctx, "same:k2", 7, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK(strcmp(rl_conn_run_id(t.conns[0]), rl_conn_run_id(t.conns[1])) != 0);
    CHECK_OUT(rl_release(&t.ctx, "same:k2", 7, info.token, &call), RL_RELEASED);
    tnet_close(&t);
}

static const test_case tests[] = {
    {"net_basic", test_net_basic},
    {"net_paused_node", test_net_paused_node},
    {"net_encoded_once", test_net_encoded_once},
    {"net_release_not_overtaken", test_net_release_not_overtaken},
    {"net_release_not_dropped", test_net_release_not_dropped},
    {"net_poll_error", test_net_poll_error},
    {"net_owed_releases_bounded", test_net_owed_releases_bounded},
    {"net_failed_attempt_no_wait", test_net_failed_attempt_no_wait},
    {"net_set_behind_gate_sent", test_net_set_behind_gate_sent},
    {"net_backoff_keeps_quorum", test_net_backoff_keeps_quorum},
    {"net_same_server", test_net_same_server},
};

const test_suite fanout_suite = {tests, N_TESTS(tests)};
