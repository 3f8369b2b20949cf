/* fence_tests.c -- C unit tests of fencing tokens: rl_fence_phases and its use in rl_acquire
 * over the fake transport, and the raise script against real redis-server processes
 * (unix sockets in a temp dir, started and stopped here by pid).
 *
 * Usage: fence_tests [substring]   runs the tests whose name contains it.
 * Prints PASS/FAIL per test and ends with "N passed, N failed". */
#define _GNU_SOURCE
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/fake.h"
#include "tests/sha1.h"

#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- runner ---- */

/* ---- the fake transport answers INCR and the raise script from these tables ---- */
static const char FKEY[] = "pfx\0redlock:fence";
#define FKEYLEN (sizeof(FKEY) - 1)

typedef struct fence_fake {
    fake_out incr[RL_MAX_NODES], raise[RL_MAX_NODES];
    int nincr, nraise;
    char raise_arg[32]; /* ARGV[1] of the last raise */
    int bad_cmd;        /* a '?' command that is neither */
} fence_fake;

static int is_incr(const rl_cmd *cmd)
{
    return cmd->argc == 2 && cmd->argvlen[0] == 4 && memcmp(cmd->argv[0], "INCR", 4) == 0;
}

static int is_raise(const rl_cmd *cmd)
{
    return cmd->argc == 5 && cmd->argvlen[0] == 7 && memcmp(cmd->argv[0], "EVALSHA", 7) == 0 && cmd->argvlen[1] == 40 &&
           memcmp(cmd->argv[1], rl_script_fence_raise_sha, 40) == 0;
}

static void fence_hook(fake *f, const rl_cmd *cmd, int callno)
{
    fence_fake *ff = f->hook_ud;
    (void)callno;
    if (is_incr(cmd)) {
        memcpy(f->other, ff->incr, sizeof(ff->incr));
        ff->nincr++;
    } else if (is_raise(cmd)) {
        memcpy(f->other, ff->raise, sizeof(ff->raise));
        size_t l = cmd->argvlen[4] < sizeof(ff->raise_arg) - 1 ? cmd->argvlen[4] : sizeof(ff->raise_arg) - 1;
        memcpy(ff->raise_arg, cmd->argv[4], l);
        ff->raise_arg[l] = '\0';
        ff->nraise++;
    } else if (fake_classify(cmd) == '?') {
        ff->bad_cmd++;
    }
}

/* n nodes; INCR answers 1 everywhere, the raise confirms with 1 */
static void ff_init(fake *f, fence_fake *ff, int n)
{
    fake_init(f, n);
    memset(ff, 0, sizeof(*ff));
    fake_set_all(ff->incr, RL_MAX_NODES, FO_INT, 1, 0);
    fake_set_all(ff->raise, RL_MAX_NODES, FO_INT, 1, 0);
    f->hook = fence_hook;
    f->hook_ud = ff;
    f->step_us = 100;
}

/* how the raise reply depends on M: a node answers its counter after raising */
static void ff_raise_all(fence_fake *ff, long long v) { fake_set_all(ff->raise, RL_MAX_NODES, FO_INT, v, 0); }

/* ---- rl_fence_phases ---- */

static void test_phases_max_and_raise(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 5);
    long long incr[5] = {3, 7, 5, 2, 4};
    for (int i = 0; i < 5; i++) ff.incr[i].v = incr[i];
    ff_raise_all(&ff, 7);
    int64_t fence = -1;
    rl_call call;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, &call), RL_ACQUIRED);
    /* decided at quorum: nodes 0,1,2 answered 3,7,5 → M = 7 */
    CHECK_EQ(fence, 7);
    CHECK_EQ(f.ncalls, 2);
    CHECK_EQ(ff.nincr, 1);
    CHECK_EQ(ff.nraise, 1);
    CHECK_EQ(ff.bad_cmd, 0);
    /* INCR key, exactly the fence key with its NUL */
    CHECK_EQ(f.calls[0].argc, 2);
    CHECK_EQ(f.calls[0].argvlen[1], FKEYLEN);
    CHECK(memcmp(f.calls[0].argv[1], FKEY, FKEYLEN) == 0);
    CHECK(f.calls[0].stopped_early);
    /* EVALSHA sha 1 key M, with the script for the NOSCRIPT fallback */
    CHECK_STR(f.calls[1].argv[0], "EVALSHA");
    CHECK_STR(f.calls[1].argv[1], rl_script_fence_raise_sha);
    CHECK_STR(f.calls[1].argv[2], "1");
    CHECK_EQ(f.calls[1].argvlen[3], FKEYLEN);
    CHECK(memcmp(f.calls[1].argv[3], FKEY, FKEYLEN) == 0);
    CHECK_STR(ff.raise_arg, "7");
    CHECK(f.calls[1].script == rl_script_fence_raise);
    CHECK(f.calls[1].stopped_early);
    /* both phases went to every node */
    for (int i = 0; i < 5; i++) CHECK_STR(f.node_log[i], "??");
    CHECK_EQ(call.ok, 3);
}

/* docs/api.md "Restarted nodes": node 0 restarted (incarnation 2), judged voting
 * again (ok_inc), its counter never raised (fence_inc). It is the slowest:
 * no SET answer in the call's results, last in both phases. Phase 2 still
 * waits for it, and its raise to M counts: the next fences count it (the
 * phases left it unraised when neither the SET nor phase 1 had waited for
 * it: tests/restart/fence_after_restart in a CI run) */
static void test_phases_raise_waits_for_restarted(void)
{
    fake f;
    fence_fake ff;
    rl_restart rs;
    ff_init(&f, &ff, 5);
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = 300;
    rs.ok_inc[0] = rs.sus_inc[0] = 2;
    for (int i = 1; i < 5; i++) rs.ok_inc[i] = rs.fence_inc[i] = 1;
    f.ctx.rs = &rs;
    f.id[0] = (rl_ident){.up_since_us = 500000, .inc = 2, .known = 1, .restarted = 1};
    for (int i = 1; i < 5; i++) f.id[i] = (rl_ident){.up_since_us = 1, .inc = 1, .known = 1};
    int order[5] = {1, 2, 3, 4, 0};
    memcpy(f.order, order, sizeof(order));
    long long incr[5] = {1, 101, 101, 2, 2};
    for (int i = 0; i < 5; i++) ff.incr[i].v = incr[i];
    ff_raise_all(&ff, 102);
    int64_t fence = -1;
    rl_call call;
    memset(&call, 0, sizeof(call)); /* the SET's results: node 0 never answered */
    for (int i = 1; i < 5; i++) {
        call.res[i].state = RL_ANSWERED;
        call.res[i].reply.type = RL_REPLY_STATUS;
        call.res[i].id = f.id[i];
    }
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, &call), RL_ACQUIRED);
    CHECK_EQ(fence, 101);
    CHECK(f.calls[0].stopped_early);            /* phase 1: a quorum of 1-3 */
    CHECK_EQ(f.calls[1].state[0], RL_ANSWERED); /* phase 2 waited for node 0 */
    CHECK_EQ(rs.fence_inc[0], 2);

    /* raised: a later quorum with it counts it */
    f.calls[0].stopped_early = 0;
    f.ncalls = 0;
    int order2[5] = {0, 3, 4, 1, 2};
    memcpy(f.order, order2, sizeof(order2));
    long long incr2[5] = {103, 103, 103, 103, 103};
    for (int i = 0; i < 5; i++) ff.incr[i].v = incr2[i];
    ff_raise_all(&ff, 103);
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, &call), RL_ACQUIRED);
    CHECK_EQ(fence, 103);
    CHECK_EQ(f.calls[0].state[1], RL_PENDING); /* decided on 0, 3, 4 */

    /* an incarnation that never restarted, unraised, is not waited for */
    ff_init(&f, &ff, 5);
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = 300;
    for (int i = 0; i < 5; i++) rs.ok_inc[i] = 1;
    f.ctx.rs = &rs;
    for (int i = 0; i < 5; i++) f.id[i] = (rl_ident){.up_since_us = 1, .inc = 1, .known = 1};
    memcpy(f.order, order, sizeof(order));
    memset(&call, 0, sizeof(call));
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, &call), RL_ACQUIRED);
    CHECK_EQ(f.calls[1].state[0], RL_PENDING);
}

static void test_phases_max_of_the_answers_only(void)
{
    /* the decided quorum is what counts: a slower node's larger value, not yet
     * arrived, is not waited for (the raise makes the later quorum see M) */
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 3);
    long long incr[3] = {4, 9, 6};
    for (int i = 0; i < 3; i++) ff.incr[i].v = incr[i];
    f.order[0] = 2, f.order[1] = 0, f.order[2] = 1;
    ff_raise_all(&ff, 6);
    int64_t fence = 0;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, NULL), RL_ACQUIRED);
    CHECK_EQ(fence, 6);
    CHECK_STR(ff.raise_arg, "6");
    CHECK_EQ(f.calls[0].state[1], RL_PENDING);
}

static void test_phases_incr_minority_failed(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 5);
    ff.incr[0] = (fake_out){FO_FAIL, 0, RL_E_TIMEOUT};
    ff.incr[3] = (fake_out){FO_FAIL, 0, RL_E_REFUSED};
    ff.incr[1].v = 11;
    ff_raise_all(&ff, 11);
    int64_t fence = 0;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, NULL), RL_ACQUIRED);
    CHECK_EQ(fence, 11);
    CHECK_EQ(ff.nraise, 1);
}

static void test_phases_incr_no_quorum(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 5);
    ff.incr[0] = (fake_out){FO_FAIL, 0, RL_E_TIMEOUT};
    ff.incr[2] = (fake_out){FO_ERR, 0, 0}; /* e.g. WRONGTYPE: a node failure */
    ff.incr[4] = (fake_out){FO_FAIL, 0, RL_E_DOWN};
    int64_t fence = 5;
    rl_call call;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, &call), RL_NO_QUORUM);
    CHECK_EQ(fence, 0);
    CHECK_EQ(ff.nraise, 0); /* no phase 2 without a quorum in phase 1 */
    CHECK_EQ(call.failed, 3);
    CHECK_EQ(call.res[2].err, RL_E_REDIS);
}

static void test_phases_incr_non_positive_is_no(void)
{
    /* a counter someone set negative answers INCR with <= 0: not a fence */
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 3);
    ff.incr[0].v = 0;
    ff.incr[1].v = -4;
    int64_t fence = 0;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, NULL), RL_CONFLICT);
    CHECK_EQ(fence, 0);
    CHECK_EQ(ff.nraise, 0);
}

static void test_phases_raise_no_quorum(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 3);
    ff.incr[0].v = 2;
    ff.incr[1].v = 2;
    ff_raise_all(&ff, 2);
    ff.raise[1] = (fake_out){FO_FAIL, 0, RL_E_TIMEOUT};
    ff.raise[2] = (fake_out){FO_FAIL, 0, RL_E_TIMEOUT};
    int64_t fence = 0;
    rl_call call;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, &call), RL_NO_QUORUM);
    CHECK_EQ(fence, 0);
    CHECK_EQ(call.ok, 1);
    CHECK_EQ(call.failed, 2);
}

static void test_phases_raise_must_reach_m(void)
{
    /* a node confirms only with a counter >= M; lower answers are "no" */
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 3);
    ff.incr[0].v = 8;
    ff.incr[1].v = 3;
    ff_raise_all(&ff, 7);
    ff.raise[0].v = 8;
    int64_t fence = 0;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, NULL), RL_CONFLICT);
    CHECK_EQ(fence, 0);
    /* a node already above M confirms */
    ff_init(&f, &ff, 3);
    ff.incr[0].v = 8;
    ff.incr[1].v = 3;
    ff_raise_all(&ff, 12);
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, NULL), RL_ACQUIRED);
    CHECK_EQ(fence, 8);
}

/* A hostile node answers INCR far above the others: not believed (its node
 * fails for the call), M comes from the honest quorum, and phase 2 does not
 * carry the huge value to the honest nodes. */
static void test_phases_hostile_incr_not_copied(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 3);
    long long incr[3] = {9007199254740991LL, 5, 6}; /* 2^53 - 1 */
    for (int i = 0; i < 3; i++) ff.incr[i].v = incr[i];
    ff_raise_all(&ff, 6);
    ff.raise[0].v = incr[0]; /* its counter stays above M: it confirms */
    int64_t fence = 0;
    rl_call call;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, &call), RL_ACQUIRED);
    CHECK_EQ(fence, 6);
    CHECK_STR(ff.raise_arg, "6");
    /* phase 1 waited for the third node: two believable answers were needed */
    CHECK_EQ(f.calls[0].state[2], RL_ANSWERED);
    /* at 2^53 or more: out of range, a node error as well */
    ff_init(&f, &ff, 3);
    long long big[3] = {5, 9007199254740992LL, 7};
    for (int i = 0; i < 3; i++) ff.incr[i].v = big[i];
    ff_raise_all(&ff, 7);
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, &call), RL_ACQUIRED);
    CHECK_EQ(fence, 7);
    CHECK_STR(ff.raise_arg, "7");
    /* the phase-1 reasons name why (seen through a failing phase 1) */
    ff_init(&f, &ff, 3);
    long long lone[3] = {1LL << 40, 5, 0};
    for (int i = 0; i < 3; i++) ff.incr[i].v = lone[i];
    ff.incr[2] = (fake_out){FO_FAIL, 0, RL_E_TIMEOUT};
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, &call), RL_NO_QUORUM);
    CHECK_EQ(ff.nraise, 0);
    CHECK_EQ(call.res[0].state, RL_FAILED);
    CHECK_EQ(call.res[0].err, RL_E_PROTO);
    CHECK(strstr(call.res[0].reason, "not believed") != NULL);
}

/* Counters close together are all believed, however large: two nodes far
 * ahead of the rest (others that lost their data) give the largest. */
static void test_phases_close_large_counters_believed(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 5);
    long long incr[5] = {(1LL << 40) + 3, 1LL << 40, 2, 1, 1};
    for (int i = 0; i < 5; i++) ff.incr[i].v = incr[i];
    ff_raise_all(&ff, (1LL << 40) + 3);
    int64_t fence = 0;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, NULL), RL_ACQUIRED);
    CHECK_EQ(fence, (1LL << 40) + 3);
    /* and a jump of exactly the bound is still believed */
    ff_init(&f, &ff, 3);
    long long edge[3] = {5 + (1LL << 24), 5, 4};
    for (int i = 0; i < 3; i++) ff.incr[i].v = edge[i];
    ff_raise_all(&ff, 5 + (1LL << 24));
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, NULL), RL_ACQUIRED);
    CHECK_EQ(fence, 5 + (1LL << 24));
}

static void test_phases_decided_when_quorum_impossible(void)
{
    /* 5 nodes, the first 3 to answer the raise fail: decided without the others */
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 5);
    ff_raise_all(&ff, 1);
    for (int i = 0; i < 3; i++) ff.raise[i] = (fake_out){FO_FAIL, 0, RL_E_TIMEOUT};
    int64_t fence = 0;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, NULL), RL_NO_QUORUM);
    CHECK(f.calls[1].stopped_early);
    CHECK_EQ(f.calls[1].decide_calls, 3);
}

static void test_phases_bad_args(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 3);
    int64_t fence = 9;
    CHECK_EQ(rl_fence_phases(&f.ctx, NULL, 0, &fence, NULL), RL_ERROR);
    CHECK_EQ(fence, 0);
    f.ctx.n = 0;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, NULL), RL_ERROR);
    CHECK_EQ(f.ncalls, 0);
    f.ctx.n = 3;
    f.fail_fanout = 1;
    CHECK_EQ(rl_fence_phases(&f.ctx, FKEY, FKEYLEN, &fence, NULL), RL_ERROR);
}

/* ---- inside rl_acquire ---- */

static rl_opts fenced_opts(void)
{
    rl_opts o = {.retry_count = 0,
                 .retry_delay_ms = 10,
                 .retry_jitter_ms = 0,
                 .drift_factor = 0.01,
                 .fence_key = FKEY,
                 .fence_keylen = FKEYLEN};
    return o;
}

static void test_acquire_fenced(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 5);
    for (int i = 0; i < 5; i++) ff.incr[i].v = 40 + i;
    ff_raise_all(&ff, 42);
    rl_opts o = fenced_opts();
    rl_lock_info info;
    rl_call call;
    uint64_t t0 = f.clock.now;
    CHECK_EQ(rl_acquire(&f.ctx, "res", 3, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK_EQ(info.fence, 42);
    CHECK_STR(f.log, "S??");
    CHECK_EQ(fake_count(&f, 'R'), 0);
    /* validity counted from before the SET, elapsed measured after the phases */
    uint64_t end = f.clock.now;
    CHECK_EQ(info.start_us, t0);
    CHECK_EQ(info.validity_ms, rl_validity_ms(10000, end - t0, 0.01));
    CHECK(info.valid_until_us <= t0 + 10000u * 1000u - 100u * 1000u);
}

static void test_acquire_unfenced_has_no_phases(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 3);
    rl_opts o = fenced_opts();
    o.fence_key = NULL;
    o.fence_keylen = 0;
    rl_lock_info info;
    CHECK_EQ(rl_acquire(&f.ctx, "res", 3, 10000, &o, &info, NULL), RL_ACQUIRED);
    CHECK_EQ(info.fence, 0);
    CHECK_STR(f.log, "S");
}

static void test_acquire_no_phase_after_failed_set(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 3);
    fake_set_all(f.set, 3, FO_NIL, 0, 0);
    rl_opts o = fenced_opts();
    rl_lock_info info;
    CHECK_EQ(rl_acquire(&f.ctx, "res", 3, 10000, &o, &info, NULL), RL_CONFLICT);
    CHECK_EQ(ff.nincr, 0);
    CHECK_EQ(info.fence, 0);
}

static void test_acquire_incr_no_quorum_releases(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 5);
    for (int i = 0; i < 3; i++) ff.incr[i] = (fake_out){FO_FAIL, 0, RL_E_TIMEOUT};
    rl_opts o = fenced_opts();
    o.retry_count = 1;
    rl_lock_info info;
    rl_call call;
    CHECK_EQ(rl_acquire(&f.ctx, "res", 3, 10000, &o, &info, &call), RL_NO_QUORUM);
    /* each attempt: SET, INCR fails, release on every node; then the retry */
    CHECK_STR(f.log, "S?RzS?R");
    CHECK_EQ(ff.nraise, 0);
    for (int i = 0; i < 5; i++) CHECK_STR(f.node_log[i], "S?RS?R");
    /* the failure names the nodes of the phase that failed */
    CHECK_EQ(call.failed, 3);
    CHECK_EQ(call.res[0].err, RL_E_TIMEOUT);
    /* the release carries our token */
    CHECK_STR(f.calls[2].argv[4], info.token);
}

static void test_acquire_raise_conflict_releases(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 3);
    ff_raise_all(&ff, 0); /* nobody confirms M */
    rl_opts o = fenced_opts();
    rl_lock_info info;
    CHECK_EQ(rl_acquire(&f.ctx, "res", 3, 10000, &o, &info, NULL), RL_CONFLICT);
    CHECK_STR(f.log, "S??R");
}

static void test_acquire_phases_eat_validity(void)
{
    /* phases slower than the TTL: the lock is worth nothing, released, conflict */
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 3);
    f.step_us = 20000; /* 20 ms per reply: 2 + 2 + 2 replies = 120 ms > 100 ms ttl */
    rl_opts o = fenced_opts();
    rl_lock_info info;
    CHECK_EQ(rl_acquire(&f.ctx, "res", 3, 100, &o, &info, NULL), RL_CONFLICT);
    CHECK_STR(f.log, "S??R");
    /* the same without fencing holds */
    ff_init(&f, &ff, 3);
    f.step_us = 20000;
    o.fence_key = NULL;
    CHECK_EQ(rl_acquire(&f.ctx, "res", 3, 100, &o, &info, NULL), RL_ACQUIRED);
}

/* A fair attempt that won the key but whose fence phases failed: its
 * ticket comes from the attempt's own answers (OK: none, the next attempt
 * still sends "0"), never from the phases' answers that the call reports
 * (the raise's integers, taken for tickets when the phases wrote into the
 * array fair_ticket read) */
static void test_acquire_fair_fence_failed_no_ticket(void)
{
    fake f;
    fence_fake ff;
    ff_init(&f, &ff, 5);
    for (int i = 0; i < 5; i++) ff.incr[i].v = 40 + i;
    ff_raise_all(&ff, 5); /* below M: not raised, the phases fail */
    rl_opts o = fenced_opts();
    o.wait_ms = 30;
    o.fair = 1;
    rl_lock_info info;
    rl_call call;
    CHECK_EQ(rl_acquire(&f.ctx, "res", 3, 10000, &o, &info, &call), RL_CONFLICT);
    int fair = 0;
    for (int c = 0; c < f.ncalls && c < FAKE_MAX_CALLS; c++) {
        if (f.calls[c].kind != 'A') continue;
        fair++;
        CHECK_STR(f.calls[c].argv[f.calls[c].argc - 2], "0");
    }
    CHECK(fair >= 2);
    CHECK(info.attempts >= 2);
}

/* ---- the script text and its SHA1 (sha1_hex: tests/sha1.h) ---- */

static void test_script_sha(void)
{
    char hex[41];
    sha1_hex("abc", 3, hex);
    CHECK_STR(hex, "a9993e364706816aba3e25717850c26c9cd0d89d"); /* FIPS 180 example */
    sha1_hex(rl_script_fence_raise, strlen(rl_script_fence_raise), hex);
    CHECK_STR(hex, rl_script_fence_raise_sha);
    /* (every script, its SHA pinned: scripts_sha in unit_tests.c) */
}

/* ---- real redis-server processes on unix sockets ---- */
#define RN 3
static char rdir[64];
static pid_t rpid[RN];
static int rstarted;

static void sock_path(int i, char *buf, size_t cap) { snprintf(buf, cap, "%s/n%d.sock", rdir, i); }

static redisContext *rconnect(int i)
{
    char p[128];
    sock_path(i, p, sizeof(p));
    struct timeval tv = {2, 0};
    redisContext *rc = redisConnectUnixWithTimeout(p, tv);
    if (rc && rc->err) {
        redisFree(rc);
        return NULL;
    }
    if (rc) redisSetTimeout(rc, tv);
    return rc;
}

static void nodes_stop(void)
{
    for (int i = 0; i < RN; i++) {
        if (rpid[i] > 0) {
            kill(rpid[i], SIGKILL);
            waitpid(rpid[i], NULL, 0);
            rpid[i] = 0;
        }
        char p[128];
        sock_path(i, p, sizeof(p));
        unlink(p);
    }
    if (rdir[0]) rmdir(rdir);
    rdir[0] = '\0';
    rstarted = 0;
}

static int nodes_start(void)
{
    if (rstarted) return 0;
    snprintf(rdir, sizeof(rdir), "/tmp/rl-fence-XXXXXX");
    if (!mkdtemp(rdir)) {
        rdir[0] = '\0';
        return -1;
    }
    for (int i = 0; i < RN; i++) {
        char p[128];
        sock_path(i, p, sizeof(p));
        pid_t pid = fork();
        if (pid < 0) return -1;
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) dup2(null, 1), dup2(null, 2);
            execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", p, "--save", "", "--appendonly", "no",
                   "--dir", rdir, (char *)NULL);
            _exit(127);
        }
        rpid[i] = pid;
    }
    rstarted = 1;
    /* bounded wait until every node answers PING */
    for (int i = 0; i < RN; i++) {
        int up = 0;
        for (int t = 0; t < 100 && !up; t++) {
            redisContext *rc = rconnect(i);
            if (rc) {
                redisReply *r = redisCommand(rc, "PING");
                up = r && r->type == REDIS_REPLY_STATUS;
                if (r) freeReplyObject(r);
                redisFree(rc);
            }
            if (!up) usleep(20000);
        }
        if (!up) return -1;
    }
    return 0;
}

static long long rcmd_int(int i, const char *fmt, ...)
{
    redisContext *rc = rconnect(i);
    if (!rc) return -999;
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(rc, fmt, ap);
    va_end(ap);
    long long v = -998;
    if (r && r->type == REDIS_REPLY_INTEGER) v = r->integer;
    if (r && r->type == REDIS_REPLY_STRING) v = atoll(r->str);
    if (r && r->type == REDIS_REPLY_NIL) v = -1000;
    if (r) freeReplyObject(r);
    redisFree(rc);
    return v;
}

/* a command given as argv (the fence key has a NUL) */
static redisReply *rcmd_argv(int i, int argc, const char **argv, const size_t *lens)
{
    redisContext *rc = rconnect(i);
    if (!rc) return NULL;
    redisReply *r = redisCommandArgv(rc, argc, argv, lens);
    redisFree(rc);
    return r;
}

static long long get_counter(int i)
{
    const char *a[2] = {"GET", FKEY};
    size_t l[2] = {3, FKEYLEN};
    redisReply *r = rcmd_argv(i, 2, a, l);
    long long v = -1;
    if (r && r->type == REDIS_REPLY_STRING) v = atoll(r->str);
    if (r) freeReplyObject(r);
    return v;
}

static void set_counter(int i, const char *v)
{
    const char *a[3] = {"SET", FKEY, v};
    size_t l[3] = {3, FKEYLEN, strlen(v)};
    redisReply *r = rcmd_argv(i, 3, a, l);
    if (r) freeReplyObject(r);
}

static long long counter_ttl(int i)
{
    const char *a[2] = {"PTTL", FKEY};
    size_t l[2] = {4, FKEYLEN};
    redisReply *r = rcmd_argv(i, 2, a, l);
    long long v = -99;
    if (r && r->type == REDIS_REPLY_INTEGER) v = r->integer;
    if (r) freeReplyObject(r);
    return v;
}

static redisReply *eval_raise(int i, const char *m)
{
    const char *a[5] = {"EVAL", rl_script_fence_raise, "1", FKEY, m};
    size_t l[5] = {4, strlen(rl_script_fence_raise), 1, FKEYLEN, strlen(m)};
    return rcmd_argv(i, 5, a, l);
}

static void test_real_raise_script(void)
{
    REQUIRE(nodes_start() == 0);
    rcmd_int(0, "FLUSHALL");
    /* missing counter: raised to M */
    redisReply *r = eval_raise(0, "5");
    REQUIRE(r);
    CHECK_EQ(r->type, REDIS_REPLY_INTEGER);
    CHECK_EQ(r->integer, 5);
    freeReplyObject(r);
    CHECK_EQ(get_counter(0), 5);
    /* higher already: kept, answered */
    set_counter(0, "9");
    r = eval_raise(0, "7");
    REQUIRE(r);
    CHECK_EQ(r->integer, 9);
    freeReplyObject(r);
    CHECK_EQ(get_counter(0), 9);
    /* lower: raised; the counter never expires, even if someone gave it a TTL */
    const char *a[3] = {"PEXPIRE", FKEY, "100000"};
    size_t l[3] = {7, FKEYLEN, 6};
    r = rcmd_argv(0, 3, a, l);
    if (r) freeReplyObject(r);
    r = eval_raise(0, "12");
    REQUIRE(r);
    CHECK_EQ(r->integer, 12);
    freeReplyObject(r);
    CHECK_EQ(get_counter(0), 12);
    CHECK_EQ(counter_ttl(0), -1);
    /* beyond 2^53 (Lua's exact range) the node refuses instead of guessing */
    set_counter(0, "9007199254740993");
    r = eval_raise(0, "9007199254740994");
    REQUIRE(r);
    CHECK_EQ(r->type, REDIS_REPLY_ERROR);
    CHECK(r->str && strstr(r->str, "out of range"));
    freeReplyObject(r);
    CHECK_EQ(get_counter(0), 9007199254740993LL);
    set_counter(0, "9007199254740991");
    r = eval_raise(0, "9007199254740991");
    REQUIRE(r);
    CHECK_EQ(r->integer, 9007199254740991LL);
    freeReplyObject(r);
    /* not an integer: an error reply, so a node failure */
    set_counter(0, "junk");
    r = eval_raise(0, "3");
    REQUIRE(r);
    CHECK_EQ(r->type, REDIS_REPLY_ERROR);
    CHECK(r->str && strstr(r->str, "not an integer"));
    freeReplyObject(r);
    rcmd_int(0, "FLUSHALL");
}

static void test_real_phases_over_the_socket_fanout(void)
{
    REQUIRE(nodes_start() == 0);
    rl_conn *conns[RN];
    for (int i = 0; i < RN; i++) {
        char p[128];
        sock_path(i, p, sizeof(p));
        rcmd_int(i, "FLUSHALL");
        rcmd_int(i, "SCRIPT FLUSH"); /* the first raise goes through NOSCRIPT → EVAL */
        rl_node_conf conf = {0};
        conf.socket = p;
        conf.connect_timeout_ms = 1000;
        conf.timeout_ms = 1000;
        conns[i] = rl_conn_new(&conf);
        REQUIRE(conns[i]);
    }
    rl_net net = {.conns = conns, .n = RN, .clock = &rl_clock_monotonic};
    rl_transport tp = {.fanout = rl_net_fanout, .ctx = &net};
    rl_ctx ctx = {.tp = &tp, .clock = &rl_clock_monotonic, .rnd = &rl_random_system, .n = RN};
    /* skewed counters: node 2 is ahead (it took INCRs the others missed) */
    set_counter(2, "10");
    int64_t fence = 0, prev = 0;
    rl_call call;
    CHECK_EQ(rl_fence_phases(&ctx, FKEY, FKEYLEN, &fence, &call), RL_ACQUIRED);
    CHECK(fence >= 1);
    prev = fence;
    rl_net_drain(&net, 2000000);
    /* after the raise a quorum holds >= fence */
    int at_least = 0;
    for (int i = 0; i < RN; i++) at_least += get_counter(i) >= fence;
    CHECK(at_least >= 2);
    for (int k = 0; k < 20; k++) {
        CHECK_EQ(rl_fence_phases(&ctx, FKEY, FKEYLEN, &fence, &call), RL_ACQUIRED);
        CHECK(fence > prev);
        prev = fence;
    }
    rl_net_drain(&net, 2000000);
    /* the raise loaded its script: SCRIPT EXISTS by our SHA */
    for (int i = 0; i < RN; i++) {
        redisContext *rc = rconnect(i);
        REQUIRE(rc);
        redisReply *r = redisCommand(rc, "SCRIPT EXISTS %s", rl_script_fence_raise_sha);
        CHECK(r && r->type == REDIS_REPLY_ARRAY && r->elements == 1 && r->element[0]->integer == 1);
        if (r) freeReplyObject(r);
        redisFree(rc);
    }
    /* a minority of nodes gone: still fenced, still increasing */
    kill(rpid[0], SIGSTOP);
    for (int i = 0; i < RN; i++) rl_conn_set_timeouts(conns[i], 100, 100);
    CHECK_EQ(rl_fence_phases(&ctx, FKEY, FKEYLEN, &fence, &call), RL_ACQUIRED);
    CHECK(fence > prev);
    prev = fence;
    /* a majority gone: no quorum */
    kill(rpid[1], SIGSTOP);
    CHECK_EQ(rl_fence_phases(&ctx, FKEY, FKEYLEN, &fence, &call), RL_NO_QUORUM);
    kill(rpid[0], SIGCONT);
    kill(rpid[1], SIGCONT);
    rl_net_drain(&net, 2000000);
    for (int i = 0; i < RN; i++) rl_conn_free(conns[i]);
}

/* ---- main ---- */
static const test_case tests[] = {
    {"phases_max_and_raise", test_phases_max_and_raise},
    {"phases_raise_waits_for_restarted", test_phases_raise_waits_for_restarted},
    {"phases_max_of_the_answers_only", test_phases_max_of_the_answers_only},
    {"phases_incr_minority_failed", test_phases_incr_minority_failed},
    {"phases_incr_no_quorum", test_phases_incr_no_quorum},
    {"phases_incr_non_positive_is_no", test_phases_incr_non_positive_is_no},
    {"phases_raise_no_quorum", test_phases_raise_no_quorum},
    {"phases_raise_must_reach_m", test_phases_raise_must_reach_m},
    {"phases_hostile_incr_not_copied", test_phases_hostile_incr_not_copied},
    {"phases_close_large_counters_believed", test_phases_close_large_counters_believed},
    {"phases_decided_when_quorum_impossible", test_phases_decided_when_quorum_impossible},
    {"phases_bad_args", test_phases_bad_args},
    {"acquire_fenced", test_acquire_fenced},
    {"acquire_unfenced_has_no_phases", test_acquire_unfenced_has_no_phases},
    {"acquire_no_phase_after_failed_set", test_acquire_no_phase_after_failed_set},
    {"acquire_incr_no_quorum_releases", test_acquire_incr_no_quorum_releases},
    {"acquire_raise_conflict_releases", test_acquire_raise_conflict_releases},
    {"acquire_phases_eat_validity", test_acquire_phases_eat_validity},
    {"acquire_fair_fence_failed_no_ticket", test_acquire_fair_fence_failed_no_ticket},
    {"script_sha", test_script_sha},
    {"real_raise_script", test_real_raise_script},
    {"real_phases_over_the_socket_fanout", test_real_phases_over_the_socket_fanout},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    test_counts c = run_tests(tests, N_TESTS(tests), argc, argv, "fence:", NULL);
    nodes_stop();
    return tests_summary(c);
}
