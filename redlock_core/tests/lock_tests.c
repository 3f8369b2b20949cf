/* lock_tests.c -- the RedLock algorithm (lock/) over the fake transport and
 * clock (tests/fake.h): quorum, validity, early decisions, retries and waits,
 * extend, release, isLocked; and key lists (docs/api.md "Several resources")
 * against real nodes (tests/nodes_fixture.h). A suite of build/unit_tests. */
#define _GNU_SOURCE
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/unit_tests.h"
#include "tests/fake.h"
#include "tests/nodes_fixture.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static fake F; /* large: static, reset by fake_init in each test */

static const rl_opts opts0 = {
    .retry_count = 0, .retry_delay_ms = 0, .retry_jitter_ms = 0, .wait_ms = 0, .drift_factor = 0.01};

static void test_quorum_math(void)
{
    static const int want[] = {0, 1, 2, 2, 3, 3, 4, 4};
    for (int n = 1; n <= 7; n++) CHECK_EQ(rl_quorum(n), want[n]);
    /* the quorum is a strict majority, and two quorums always intersect */
    for (int n = 1; n <= RL_MAX_NODES; n++) {
        CHECK(2 * rl_quorum(n) > n);
        CHECK(2 * (rl_quorum(n) - 1) <= n);
    }
}

/* For n = 1..7: exactly a quorum of OKs acquires, one less does not. The OKs
 * come last so every node has to be heard from. */
static void test_acquire_exact_quorum(void)
{
    for (int n = 1; n <= 7; n++) {
        int q = rl_quorum(n);
        rl_lock_info info;
        rl_call call;

        fake_init(&F, n);
        for (int i = 0; i < n; i++) F.set[i].kind = i < n - q ? FO_NIL : FO_OK;
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_ACQUIRED);
        CHECK_EQ(info.ok, q);
        CHECK_EQ(call.ok, q);
        CHECK_EQ(info.attempts, 1);
        CHECK_EQ(fake_count(&F, 'S'), 1);
        CHECK_EQ(fake_count(&F, 'R'), 0); /* a won lock is not released */

        fake_init(&F, n);
        for (int i = 0; i < n; i++) F.set[i].kind = i < q - 1 ? FO_OK : FO_NIL;
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_CONFLICT);
        CHECK_EQ(call.ok, q - 1);
        /* the partial lock is undone; with no OK at all there is nothing to undo */
        CHECK_EQ(fake_count(&F, 'R'), q > 1 ? 1 : 0);
    }
}

static void test_acquire_set_command(void)
{
    rl_lock_info info;
    fake_init(&F, 3);
    CHECK_OUT(rl_acquire(&F.ctx, "res:1", 5, 30000, &opts0, &info, NULL), RL_ACQUIRED);
    REQUIRE(F.ncalls == 1);
    fake_rec *r = &F.calls[0];
    /* the SET NX PX as the acquire script (which also keeps out of a fair
     * queue): EVALSHA sha 1 key token ttl "" (no shard) */
    CHECK_EQ(r->argc, 7);
    CHECK_STR(r->argv[0], "EVALSHA");
    CHECK_STR(r->argv[1], rl_script_acquire_sha);
    CHECK_STR(r->argv[2], "1");
    CHECK_STR(r->argv[3], "res:1");
    CHECK_STR(r->argv[4], info.token);
    CHECK_STR(r->argv[5], "30000");
    CHECK_EQ(r->argvlen[6], 0);
    CHECK(strstr(rl_script_acquire, "\"NX\",\"PX\",ARGV[2]") != NULL);
    CHECK_EQ(r->n, 3);
    CHECK(is_lower_hex_token(info.token));
    /* binary-safe key: length, not strlen (a NUL makes a key list, RL_KEY_LIST) */
    fake_init(&F, 3);
    CHECK_OUT(rl_acquire(&F.ctx,
                         "a\xff\x01"
                         "b",
                         4, 100, &opts0, &info, NULL),
              RL_ACQUIRED);
    CHECK_EQ(F.calls[0].argvlen[3], 4);
    CHECK(memcmp(F.calls[0].argv[3],
                 "a\xff\x01"
                 "b",
                 4) == 0);
    /* a key list: its script, the whole list as one key */
    fake_init(&F, 3);
    CHECK_OUT(rl_acquire(&F.ctx, "\0\0\1a\0\1b", 7, 100, &opts0, &info, NULL), RL_ACQUIRED);
    CHECK_STR(F.calls[0].argv[0], "EVALSHA");
    CHECK_STR(F.calls[0].argv[1], rl_script_acquire_all_sha);
    CHECK_EQ(F.calls[0].argvlen[3], 7);
    CHECK(memcmp(F.calls[0].argv[3], "\0\0\1a\0\1b", 7) == 0);
}

static void test_acquire_conflict_quorum_minus_one(void)
{
    rl_lock_info info;
    rl_call call;
    fake_init(&F, 5);
    /* 2 OK + 3 NIL: someone else holds it */
    F.set[0].kind = FO_OK;
    F.set[1].kind = FO_NIL;
    F.set[2].kind = FO_OK;
    F.set[3].kind = FO_NIL;
    F.set[4].kind = FO_NIL;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_CONFLICT);
    CHECK_EQ(call.ok, 2);
    CHECK_EQ(call.failed, 0);
    CHECK_EQ(fake_count(&F, 'R'), 1);
}

static void test_acquire_no_quorum(void)
{
    rl_lock_info info;
    rl_call call;
    /* n=5: 3 failures > n - quorum = 2 → NO_QUORUM, even with 2 OKs */
    fake_init(&F, 5);
    F.set[0].kind = FO_OK;
    F.set[1].kind = FO_FAIL, F.set[1].err = RL_E_TIMEOUT;
    F.set[2].kind = FO_FAIL, F.set[2].err = RL_E_REFUSED;
    F.set[3].kind = FO_OK;
    F.set[4].kind = FO_FAIL, F.set[4].err = RL_E_DOWN;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_NO_QUORUM);
    CHECK_EQ(call.failed, 3);
    CHECK_EQ(call.res[1].err, RL_E_TIMEOUT);
    CHECK_EQ(call.res[2].err, RL_E_REFUSED);

    /* exactly n - quorum failures and the rest NIL: a conflict, not "no quorum" */
    fake_init(&F, 5);
    F.set[0].kind = FO_FAIL, F.set[0].err = RL_E_TIMEOUT;
    F.set[1].kind = FO_FAIL, F.set[1].err = RL_E_TIMEOUT;
    F.set[2].kind = FO_NIL;
    F.set[3].kind = FO_OK;
    F.set[4].kind = FO_OK;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_CONFLICT);

    /* every node down */
    for (int n = 1; n <= 7; n++) {
        fake_init(&F, n);
        fake_set_all(F.set, n, FO_FAIL, 0, RL_E_REFUSED);
        fake_set_all(F.rel, n, FO_FAIL, 0, RL_E_DOWN);
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_NO_QUORUM);
    }
    /* error replies count as failures */
    fake_init(&F, 3);
    fake_set_all(F.set, 3, FO_ERR, 0, 0);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_NO_QUORUM);
}

/* validity = ttl - elapsed - (ttl * drift + 2), elapsed measured on the
 * injected clock across the fan-out (rounded up to whole ms). */
static void test_acquire_validity(void)
{
    rl_lock_info info;
    fake_init(&F, 3);
    F.step_us = 1500; /* two OKs decide: 3000 us */
    uint64_t t0 = F.clock.now;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, NULL), RL_ACQUIRED);
    CHECK_EQ(F.calls[0].t_end - F.calls[0].t_start, 3000);
    CHECK_EQ(info.validity_ms, 10000 - 3 - (100 + 2));
    CHECK_EQ(info.start_us, t0);
    CHECK_EQ(info.valid_until_us, F.clock.now + (uint64_t)info.validity_ms * 1000u);
    CHECK_EQ(rl_remaining_ms(&info, F.clock.now), info.validity_ms);

    /* partial milliseconds are rounded up: 2 * 1234 us = 2468 us → 3 ms */
    fake_init(&F, 3);
    F.step_us = 1234;
    rl_opts o = opts0;
    o.drift_factor = 0.0;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ACQUIRED);
    CHECK_EQ(info.validity_ms, 1000 - 3 - 2);
    CHECK_EQ(info.validity_ms, rl_validity_ms(1000, 2468, 0.0));

    /* the spec's example factor */
    fake_init(&F, 5);
    F.step_us = 10000;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 2000, &opts0, &info, NULL), RL_ACQUIRED);
    CHECK_EQ(info.validity_ms, 2000 - 30 - (20 + 2));
}

/* The time to reach the quorum ate the whole TTL: not acquired, undone. */
static void test_acquire_validity_expired(void)
{
    rl_lock_info info;
    rl_call call;
    fake_init(&F, 3);
    F.step_us = 60000; /* 120 ms for two OKs, TTL 100 ms */
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 100, &opts0, &info, &call), RL_CONFLICT);
    CHECK_EQ(call.ok, 2); /* the nodes did say OK */
    REQUIRE(F.ncalls == 2);
    CHECK_EQ(F.calls[1].kind, 'R');
    CHECK_STR(F.calls[1].argv[4], info.token);

    /* validity exactly 0 is not a lock either: ttl 105, drift 1 + 2, elapsed 102 */
    fake_init(&F, 1);
    F.step_us = 102000;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 105, &opts0, &info, &call), RL_CONFLICT);
    CHECK_EQ(rl_validity_ms(105, 102000, 0.01), 0);
    CHECK_EQ(fake_count(&F, 'R'), 1);
    /* one ms less and it is held */
    fake_init(&F, 1);
    F.step_us = 101000;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 105, &opts0, &info, &call), RL_ACQUIRED);
    CHECK_EQ(info.validity_ms, 1);
}

/* After a failed attempt the token-checked release goes to every node where
 * our SET may have landed: those that said OK, timed out or were not heard
 * from; not to those that answered nil (nothing of ours there). */
static void test_acquire_failure_releases_everywhere(void)
{
    rl_lock_info info;
    rl_call call;
    fake_init(&F, 5);
    F.set[0].kind = FO_OK;
    F.set[1].kind = FO_FAIL, F.set[1].err = RL_E_TIMEOUT;
    F.set[2].kind = FO_NIL;
    F.set[3].kind = FO_FAIL, F.set[3].err = RL_E_TIMEOUT;
    F.set[4].kind = FO_NIL;
    /* the release answers from the node that timed out come last */
    int order[5] = {4, 2, 0, 3, 1};
    memcpy(F.order, order, sizeof(order));
    CHECK_OUT(rl_acquire(&F.ctx, "lockkey", 7, 10000, &opts0, &info, &call), RL_CONFLICT);
    REQUIRE(F.ncalls == 2);
    fake_rec *r = &F.calls[1];
    CHECK_EQ(r->kind, 'R');
    CHECK_EQ(r->n, 5);
    CHECK_EQ(r->argc, 6);
    CHECK_STR(r->argv[0], "EVALSHA");
    CHECK_STR(r->argv[1], rl_script_release_sha);
    CHECK_STR(r->argv[2], "1");
    CHECK_STR(r->argv[3], "lockkey");
    CHECK_STR(r->argv[4], info.token);
    CHECK_EQ(r->argvlen[5], RL_RELEASE_ID_LEN); /* the release's id (rl_script_release) */
    CHECK(r->script == rl_script_release);
    /* sent to the three where the SET may have landed */
    CHECK_STR(F.node_log[0], "SR");
    CHECK_STR(F.node_log[1], "SR");
    CHECK_STR(F.node_log[2], "S");
    CHECK_STR(F.node_log[3], "SR");
    CHECK_STR(F.node_log[4], "S");
    /* queued behind the SET on each connection, not waited for: a hung
     * node must not make every failed attempt cost the full timeout */
    CHECK(r->nowait);
    CHECK(!r->delivered[0] && !r->delivered[1] && !r->delivered[3]);
    /* the attempt's results are what the caller sees: NIL, NIL, OK, TIMEOUT
     * made the quorum impossible, node 1 was never heard from */
    CHECK_EQ(call.res[3].err, RL_E_TIMEOUT);
    CHECK_EQ(call.res[1].state, RL_PENDING);
}

/* Release sent even when the attempt ended early and some nodes never answered. */
static void test_acquire_failure_releases_pending(void)
{
    rl_lock_info info;
    fake_init(&F, 5);
    fake_set_all(F.set, 5, FO_NIL, 0, 0);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, NULL), RL_CONFLICT);
    REQUIRE(F.ncalls == 2);
    /* three NILs made a quorum impossible: nodes 3 and 4 were never heard */
    CHECK(F.calls[0].stopped_early);
    CHECK_EQ(F.calls[0].state[3], RL_PENDING);
    CHECK_EQ(F.calls[0].state[4], RL_PENDING);
    /* their SET may still land: the release goes to them too, queued
     * behind the SET on the same connection (not awaited) */
    CHECK_EQ(F.calls[1].kind, 'R');
    CHECK_EQ(F.calls[1].n, 5);
    CHECK(F.calls[1].nowait);
}

/* The fan-out stops as soon as decide() knows the outcome. */
static void test_early_decision(void)
{
    rl_lock_info info;
    rl_call call;

    /* quorum reached after 3 of 5 */
    fake_init(&F, 5);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_ACQUIRED);
    CHECK_EQ(F.calls[0].decide_calls, 3);
    CHECK(F.calls[0].stopped_early);
    CHECK_EQ(call.res[3].state, RL_PENDING);
    CHECK_EQ(call.res[4].state, RL_PENDING);
    CHECK_EQ(call.ok, 3);
    CHECK_EQ(call.answered, 3);
    CHECK_EQ(info.ok, 3);

    /* quorum impossible after NIL, FAIL, NIL of 5 (ok 0 + pending 2 < 3) */
    fake_init(&F, 5);
    F.set[0].kind = FO_NIL;
    F.set[1].kind = FO_FAIL, F.set[1].err = RL_E_TIMEOUT;
    F.set[2].kind = FO_NIL;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_CONFLICT);
    CHECK_EQ(F.calls[0].decide_calls, 3);
    CHECK_EQ(call.res[3].state, RL_PENDING);
    CHECK_EQ(call.res[4].state, RL_PENDING);

    /* still possible after OK, NIL, NIL, OK of 5: must hear the fifth */
    fake_init(&F, 5);
    F.set[1].kind = FO_NIL;
    F.set[2].kind = FO_NIL;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_ACQUIRED);
    CHECK_EQ(F.calls[0].decide_calls, 5);
    CHECK(!F.calls[0].stopped_early);

    /* release, extend and is_locked decide early too */
    fake_init(&F, 7);
    CHECK_OUT(rl_release(&F.ctx, "k", 1, "tok", &call), RL_RELEASED);
    CHECK_EQ(F.calls[0].decide_calls, 4);
    for (int i = 4; i < 7; i++) CHECK_EQ(call.res[i].state, RL_PENDING);
    fake_init(&F, 7);
    CHECK_OUT(rl_extend(&F.ctx, "k", 1, "tok", 1000, 0.01, &info, &call), RL_EXTENDED);
    CHECK_EQ(F.calls[0].decide_calls, 4);
    fake_init(&F, 7);
    fake_set_all(F.ex, 7, FO_INT, 1, 0);
    CHECK_OUT(rl_is_locked(&F.ctx, "k", 1, &call), RL_YES);
    CHECK_EQ(F.calls[0].decide_calls, 4);
    CHECK_EQ(call.res[6].state, RL_PENDING);
    fake_init(&F, 7);
    CHECK_OUT(rl_is_locked(&F.ctx, "k", 1, &call), RL_NO);
    CHECK_EQ(F.calls[0].decide_calls, 4);
}

/* retry_count N: N+1 attempts, a pause between attempts, none after the last */
static void test_retries(void)
{
    rl_lock_info info;
    for (int N = 0; N <= 5; N++) {
        rl_opts o = {
            .retry_count = N, .retry_delay_ms = 200, .retry_jitter_ms = 50, .wait_ms = 0, .drift_factor = 0.01};
        fake_init(&F, 3);
        fake_set_all(F.set, 3, FO_NIL, 0, 0);
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &o, &info, NULL), RL_CONFLICT);
        CHECK_EQ(fake_count(&F, 'S'), N + 1);
        CHECK_EQ(info.attempts, N + 1);
        CHECK_EQ(F.clock.nsleeps, N);
        for (int s = 0; s < F.clock.nsleeps && s < FAKE_MAX_SLEEPS; s++) {
            CHECK(F.clock.sleep_us[s] >= 200000);
            CHECK(F.clock.sleep_us[s] <= 250000);
        }
        /* SET, release, pause, ... ending with a release, never a pause */
        char want[64] = "";
        for (int a = 0; a <= N; a++) strcat(want, a < N ? "SRz" : "SR");
        CHECK_STR(F.log, want);
    }
    /* jitter spreads: with a counter random source the pauses differ */
    {
        rl_opts o = {
            .retry_count = 20, .retry_delay_ms = 10, .retry_jitter_ms = 100, .wait_ms = 0, .drift_factor = 0.01};
        fake_init(&F, 3);
        fake_set_all(F.set, 3, FO_NIL, 0, 0);
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &o, &info, NULL), RL_CONFLICT);
        CHECK_EQ(F.clock.nsleeps, 20);
        uint64_t mn = UINT64_MAX, mx = 0;
        for (int s = 0; s < 20; s++) {
            CHECK(F.clock.sleep_us[s] >= 10000 && F.clock.sleep_us[s] <= 110000);
            if (F.clock.sleep_us[s] < mn) mn = F.clock.sleep_us[s];
            if (F.clock.sleep_us[s] > mx) mx = F.clock.sleep_us[s];
        }
        CHECK(mx > mn);
    }
    /* extreme random values stay in range: all-0xff and all-0x00 */
    for (int b = 0; b < 2; b++) {
        rl_opts o = {.retry_count = 3, .retry_delay_ms = 7, .retry_jitter_ms = 3, .wait_ms = 0, .drift_factor = 0.01};
        fake_init(&F, 1);
        F.rnd.len = 1;
        F.rnd.bytes[0] = b ? 0xff : 0x00;
        fake_set_all(F.set, 1, FO_NIL, 0, 0);
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &o, &info, NULL), RL_CONFLICT);
        CHECK_EQ(F.clock.nsleeps, 3);
        for (int s = 0; s < 3; s++) CHECK(F.clock.sleep_us[s] >= 7000 && F.clock.sleep_us[s] <= 10000);
    }
    /* no jitter: the pause is the delay exactly, and no random bytes are spent on it */
    {
        rl_opts o = {.retry_count = 2, .retry_delay_ms = 30, .retry_jitter_ms = 0, .wait_ms = 0, .drift_factor = 0.01};
        fake_init(&F, 3);
        fake_set_all(F.set, 3, FO_NIL, 0, 0);
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &o, &info, NULL), RL_CONFLICT);
        CHECK_EQ(F.clock.nsleeps, 2);
        CHECK_EQ(F.clock.sleep_us[0], 30000);
        CHECK_EQ(F.clock.sleep_us[1], 30000);
        CHECK_EQ(F.rnd.calls, 1); /* the token only */
    }
}

static void hook_win_on_third(fake *f, const rl_cmd *cmd, int callno)
{
    (void)callno;
    /* (a waiting lock()'s later attempts are the acquire script: a waiting writer, docs/api.md "Read locks") */
    char k = fake_classify(cmd);
    if ((k == 'S' || k == 'A') && fake_count(f, 'S') + fake_count(f, 'A') == 2) fake_set_all(f->set, f->n, FO_OK, 0, 0);
}

static void test_retry_then_win(void)
{
    rl_lock_info info;
    rl_opts o = {.retry_count = 5, .retry_delay_ms = 100, .retry_jitter_ms = 0, .wait_ms = 0, .drift_factor = 0.01};
    fake_init(&F, 5);
    F.step_us = 1000;
    fake_set_all(F.set, 5, FO_NIL, 0, 0);
    F.hook = hook_win_on_third;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &o, &info, NULL), RL_ACQUIRED);
    CHECK_EQ(info.attempts, 3);
    CHECK_STR(F.log, "SRzSRzS");
    /* the same token on every attempt */
    CHECK_STR(F.calls[0].argv[4], info.token);
    CHECK_STR(F.calls[1].argv[4], info.token);
    CHECK_STR(F.calls[2].argv[4], info.token);
    CHECK_STR(F.calls[4].argv[4], info.token);
    /* start and validity of the winning attempt */
    CHECK_EQ(info.start_us, F.calls[4].t_start);
    CHECK_EQ(info.validity_ms, 10000 - 3 - 102);
}

/* wait_ms: retry until the deadline; never sleep past it; stop there. */
static void test_wait_deadline(void)
{
    rl_lock_info info;
    /* a free fan-out: the total is the wait, never more */
    {
        rl_opts o = {
            .retry_count = 0, .retry_delay_ms = 100, .retry_jitter_ms = 50, .wait_ms = 1000, .drift_factor = 0.01};
        fake_init(&F, 3);
        fake_set_all(F.set, 3, FO_NIL, 0, 0);
        uint64_t start = F.clock.now;
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &o, &info, NULL), RL_CONFLICT);
        uint64_t deadline = start + 1000000;
        CHECK(F.clock.now <= deadline);
        CHECK(F.clock.now - start <= 1000000);
        CHECK(F.clock.nsleeps >= 6); /* 1000 ms in pauses of 100..150 ms */
        for (int s = 0; s < F.clock.nsleeps && s < FAKE_MAX_SLEEPS; s++)
            CHECK(F.clock.sleep_at[s] + F.clock.sleep_us[s] <= deadline);
        CHECK(info.attempts >= 7);
    }
    /* each fan-out costs 3 x 7 ms: sleeps still end by the deadline, no
     * attempt starts after it, and at most one attempt overruns it */
    {
        rl_opts o = {
            .retry_count = 0, .retry_delay_ms = 40, .retry_jitter_ms = 30, .wait_ms = 500, .drift_factor = 0.01};
        fake_init(&F, 3);
        F.step_us = 7000;
        fake_set_all(F.set, 3, FO_NIL, 0, 0);
        uint64_t start = F.clock.now, deadline = start + 500000;
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &o, &info, NULL), RL_CONFLICT);
        for (int s = 0; s < F.clock.nsleeps && s < FAKE_MAX_SLEEPS; s++)
            CHECK(F.clock.sleep_at[s] + F.clock.sleep_us[s] <= deadline);
        uint64_t attempt_cost = 0;
        for (int c = 0; c < F.ncalls; c++) {
            if (F.calls[c].kind == 'S') CHECK(F.calls[c].t_start <= deadline);
            if (F.calls[c].t_end - F.calls[c].t_start > attempt_cost)
                attempt_cost = F.calls[c].t_end - F.calls[c].t_start;
        }
        CHECK(F.clock.now <= deadline + 2 * attempt_cost); /* the SET and its release */
        CHECK(F.log[strlen(F.log) - 1] != 'z');
    }
    /* success inside the wait returns at once */
    {
        rl_opts o = {
            .retry_count = 0, .retry_delay_ms = 100, .retry_jitter_ms = 0, .wait_ms = 5000, .drift_factor = 0.01};
        fake_init(&F, 3);
        fake_set_all(F.set, 3, FO_NIL, 0, 0);
        F.hook = hook_win_on_third;
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &o, &info, NULL), RL_ACQUIRED);
        CHECK_EQ(info.attempts, 3);
        CHECK_EQ(F.clock.nsleeps, 2);
    }
    /* wait takes precedence over retry_count */
    {
        rl_opts o = {
            .retry_count = 1, .retry_delay_ms = 100, .retry_jitter_ms = 0, .wait_ms = 1000, .drift_factor = 0.01};
        fake_init(&F, 3);
        fake_set_all(F.set, 3, FO_NIL, 0, 0);
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &o, &info, NULL), RL_CONFLICT);
        CHECK(fake_count(&F, 'S') + fake_count(&F, 'A') > 2);
    }
}

static void test_extend(void)
{
    rl_lock_info info;
    rl_call call;
    const char *tok = "0123456789abcdef0123456789abcdef01234567";

    fake_init(&F, 5);
    F.step_us = 2000;
    memset(&info, 0, sizeof(info));
    CHECK_OUT(rl_extend(&F.ctx, "k", 1, tok, 20000, 0.01, &info, &call), RL_EXTENDED);
    REQUIRE(F.ncalls == 1);
    fake_rec *r = &F.calls[0];
    CHECK_EQ(r->kind, 'X');
    CHECK_EQ(r->argc, 6);
    CHECK_STR(r->argv[0], "EVALSHA");
    CHECK_STR(r->argv[1], rl_script_extend_sha);
    CHECK_STR(r->argv[2], "1");
    CHECK_STR(r->argv[3], "k");
    CHECK_STR(r->argv[4], tok);
    CHECK_STR(r->argv[5], "20000");
    CHECK(r->script == rl_script_extend);
    CHECK_EQ(info.validity_ms, 20000 - 6 - (200 + 2));
    CHECK_EQ(info.ok, 3);
    CHECK_EQ(info.valid_until_us, F.clock.now + (uint64_t)info.validity_ms * 1000u);

    /* token gone on a majority: lost */
    fake_init(&F, 5);
    fake_set_all(F.ext, 5, FO_INT, 0, 0);
    F.ext[0].v = 1;
    F.ext[1].v = 1;
    CHECK_OUT(rl_extend(&F.ctx, "k", 1, tok, 20000, 0.01, &info, &call), RL_LOST);
    /* too many nodes failing: no quorum (the failures are heard first) */
    fake_init(&F, 5);
    fake_set_all(F.ext, 5, FO_FAIL, 0, RL_E_TIMEOUT);
    F.ext[4].kind = FO_INT;
    CHECK_OUT(rl_extend(&F.ctx, "k", 1, tok, 20000, 0.01, &info, &call), RL_NO_QUORUM);
    /* confirmed, but the extension took longer than its TTL: lost */
    fake_init(&F, 3);
    F.step_us = 80000;
    CHECK_OUT(rl_extend(&F.ctx, "k", 1, tok, 100, 0.01, &info, &call), RL_LOST);
    /* n - quorum failures and the rest confirming */
    fake_init(&F, 5);
    F.ext[0].kind = FO_FAIL, F.ext[0].err = RL_E_TIMEOUT;
    F.ext[1].kind = FO_FAIL, F.ext[1].err = RL_E_IO;
    CHECK_OUT(rl_extend(&F.ctx, "k", 1, tok, 1000, 0.01, &info, &call), RL_EXTENDED);
    /* bad arguments */
    fake_init(&F, 3);
    CHECK_OUT(rl_extend(&F.ctx, "k", 1, tok, 0, 0.01, &info, &call), RL_ERROR);
    CHECK_EQ(F.ncalls, 0);
}

static void test_release(void)
{
    rl_call call;
    const char *tok = "ffffffffffffffffffffffffffffffffffffffff";

    fake_init(&F, 3);
    CHECK_OUT(rl_release(&F.ctx, "key", 3, tok, &call), RL_RELEASED);
    REQUIRE(F.ncalls == 1);
    CHECK_EQ(F.calls[0].kind, 'R');
    CHECK_EQ(F.calls[0].argc, 6);
    CHECK_STR(F.calls[0].argv[3], "key");
    CHECK_STR(F.calls[0].argv[4], tok);
    CHECK(F.calls[0].script == rl_script_release);
    /* ARGV[2]: a random id per release, hex, never the token: what the wake
     * message carries (a second release of the same token gets another) */
    char id1[FAKE_ARG_MAX];
    CHECK_EQ(F.calls[0].argvlen[5], RL_RELEASE_ID_LEN);
    CHECK_EQ(strspn(F.calls[0].argv[5], "0123456789abcdef"), RL_RELEASE_ID_LEN);
    CHECK(strstr(tok, F.calls[0].argv[5]) == NULL);
    memcpy(id1, F.calls[0].argv[5], sizeof(id1));
    fake_init(&F, 3);
    CHECK_OUT(rl_release(&F.ctx, "key", 3, tok, &call), RL_RELEASED);
    CHECK(strcmp(F.calls[0].argv[5], id1) != 0);

    /* token no longer ours on a majority */
    fake_init(&F, 3);
    fake_set_all(F.rel, 3, FO_INT, 0, 0);
    F.rel[0].v = 1;
    CHECK_OUT(rl_release(&F.ctx, "key", 3, tok, &call), RL_LOST);
    CHECK_EQ(call.ok, 1);
    /* majority failing */
    fake_init(&F, 3);
    fake_set_all(F.rel, 3, FO_FAIL, 0, RL_E_TIMEOUT);
    F.rel[1].kind = FO_INT;
    F.rel[1].v = 1;
    CHECK_OUT(rl_release(&F.ctx, "key", 3, tok, &call), RL_NO_QUORUM);
    CHECK_EQ(call.failed, 2);
    /* error replies (e.g. script error) are failures */
    fake_init(&F, 3);
    fake_set_all(F.rel, 3, FO_ERR, 0, 0);
    CHECK_OUT(rl_release(&F.ctx, "key", 3, tok, &call), RL_NO_QUORUM);
    /* one node released, one lost, one failed: lost */
    fake_init(&F, 3);
    F.rel[1].v = 0;
    F.rel[2].kind = FO_FAIL, F.rel[2].err = RL_E_TIMEOUT;
    CHECK_OUT(rl_release(&F.ctx, "key", 3, tok, &call), RL_LOST);
    /* without a call struct */
    fake_init(&F, 1);
    CHECK_OUT(rl_release(&F.ctx, "key", 3, tok, NULL), RL_RELEASED);
}

static void test_is_locked(void)
{
    rl_call call;
    fake_init(&F, 5);
    fake_set_all(F.ex, 5, FO_INT, 1, 0);
    F.ex[0].v = 0;
    F.ex[1].v = 0;
    CHECK_OUT(rl_is_locked(&F.ctx, "key", 3, &call), RL_YES);
    REQUIRE(F.ncalls == 1);
    CHECK_EQ(F.calls[0].kind, 'E');
    CHECK_EQ(F.calls[0].argc, 2);
    CHECK_STR(F.calls[0].argv[1], "key");

    fake_init(&F, 5);
    F.ex[0].v = 1;
    F.ex[1].v = 1;
    CHECK_OUT(rl_is_locked(&F.ctx, "key", 3, &call), RL_NO);

    /* 3 of 5 failed: cannot tell */
    fake_init(&F, 5);
    fake_set_all(F.ex, 5, FO_FAIL, 0, RL_E_TIMEOUT);
    F.ex[1].kind = FO_INT;
    F.ex[3].kind = FO_INT;
    CHECK_OUT(rl_is_locked(&F.ctx, "key", 3, &call), RL_NO_QUORUM);
    /* n=3: one says no, two fail: no quorum, not "no" */
    fake_init(&F, 3);
    F.ex[1].kind = FO_FAIL, F.ex[1].err = RL_E_REFUSED;
    F.ex[2].kind = FO_FAIL, F.ex[2].err = RL_E_DOWN;
    CHECK_OUT(rl_is_locked(&F.ctx, "key", 3, &call), RL_NO_QUORUM);
    /* n=3: one yes, one no, one failed: answered a quorum, but no majority says yes */
    fake_init(&F, 3);
    F.ex[0].v = 1;
    F.ex[2].kind = FO_FAIL, F.ex[2].err = RL_E_TIMEOUT;
    CHECK_OUT(rl_is_locked(&F.ctx, "key", 3, &call), RL_NO);
}

static void test_bad_args_and_oom(void)
{
    rl_lock_info info;
    rl_call call;
    fake_init(&F, 3);
    F.ctx.n = 0;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &opts0, &info, &call), RL_ERROR);
    CHECK_OUT(rl_release(&F.ctx, "k", 1, "t", &call), RL_ERROR);
    CHECK_OUT(rl_is_locked(&F.ctx, "k", 1, &call), RL_ERROR);
    F.ctx.n = RL_MAX_NODES + 1;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &opts0, &info, &call), RL_ERROR);
    F.ctx.n = 3;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 0, &opts0, &info, &call), RL_ERROR);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, -5, &opts0, &info, &call), RL_ERROR);
    CHECK_EQ(F.ncalls, 0);
    F.fail_fanout = 1;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &opts0, &info, &call), RL_ERROR);
    CHECK_OUT(rl_release(&F.ctx, "k", 1, "t", &call), RL_ERROR);
    CHECK_OUT(rl_extend(&F.ctx, "k", 1, "t", 100, 0.01, &info, &call), RL_ERROR);
    CHECK_OUT(rl_is_locked(&F.ctx, "k", 1, &call), RL_ERROR);
    /* the random source failing: no token, no lock, nothing sent */
    fake_init(&F, 3);
    F.rnd.fail = 1;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &opts0, &info, &call), RL_ERROR);
    CHECK_EQ(F.ncalls, 0);
    /* RL_MAX_NODES nodes work */
    fake_init(&F, RL_MAX_NODES);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &opts0, &info, &call), RL_ACQUIRED);
    CHECK_EQ(info.ok, rl_quorum(RL_MAX_NODES));
}

static void test_validity_and_remaining(void)
{
    CHECK_EQ(rl_validity_ms(10000, 0, 0.01), 10000 - 0 - 102);
    CHECK_EQ(rl_validity_ms(10000, 1, 0.01), 10000 - 1 - 102); /* 1 us rounds up to 1 ms */
    CHECK_EQ(rl_validity_ms(10000, 1000, 0.01), 10000 - 1 - 102);
    CHECK_EQ(rl_validity_ms(10000, 1001, 0.01), 10000 - 2 - 102);
    CHECK_EQ(rl_validity_ms(1000, 0, 0.0), 998);
    CHECK_EQ(rl_validity_ms(100, 200000, 0.01), 100 - 200 - 3); /* negative, no wrap */
    CHECK(rl_validity_ms(1, 0, 0.01) <= 0);
    CHECK_EQ(rl_validity_ms(2147483647, 0, 0.0), 2147483645);
    CHECK_EQ(rl_validity_ms(30000, 5500, 0.1), 30000 - 6 - 3002);

    rl_lock_info info;
    memset(&info, 0, sizeof(info));
    info.valid_until_us = 5000000;
    CHECK_EQ(rl_remaining_ms(&info, 0), 5000);
    CHECK_EQ(rl_remaining_ms(&info, 4000001), 999); /* rounds down: never claims time it lacks */
    CHECK_EQ(rl_remaining_ms(&info, 4999999), 0);
    CHECK_EQ(rl_remaining_ms(&info, 5000000), 0);
    CHECK_EQ(rl_remaining_ms(&info, UINT64_MAX), 0);
}

/* a key list (docs/api.md "Several resources"): all keys or none on each node,
 * one token; a node counts only when it holds every key */
static int keys_with(int node, const char *const *keys, int nk, const char *token)
{
    int k = 0;
    for (int j = 0; j < nk; j++) {
        redisReply *r = admin(node, 0, "GET %s", keys[j]);
        k += r && r->type == REDIS_REPLY_STRING && (!token || strcmp(r->str, token) == 0);
        if (r) freeReplyObject(r);
    }
    return k;
}

static void test_net_key_list(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_lock_info info, other;
    rl_call call;
    rl_opts o = ONE_TRY;
    static const char list[] = "\0\0\4kl:a\0\4kl:b\0\4kl:c";
    static const char list2[] = "\0\0\4kl:d\0\4kl:b";
    const char *keys[4] = {"kl:a", "kl:b", "kl:c", "kl:d"};
    REQUIRE(tnet_open(&t, NNODES) == 0);
    for (int i = 0; i < NNODES; i++) admin_int(i, 0, "DEL kl:a kl:b kl:c kl:d");
    CHECK(rl_key_is_list(list, sizeof(list) - 1));
    CHECK(!rl_key_is_list("kl:a", 4));
    CHECK(!rl_key_is_list("kl:a\0p1", 7)); /* (a permit's slot key, RL semaphores) */
    {
        char b[64];
        size_t len = 0, pos = 1, kl;
        const char *k;
        CHECK_EQ(rl_list_add(b, sizeof(b), &len, "kl:a", 4), 0);
        CHECK_EQ(rl_list_add(b, sizeof(b), &len, "kl:b", 4), 0);
        CHECK_EQ(rl_list_add(b, sizeof(b), &len, "kl:c", 4), 0);
        CHECK(len == sizeof(list) - 1 && memcmp(b, list, len) == 0);
        CHECK(rl_list_next(b, len, &pos, &k, &kl) && kl == 4 && memcmp(k, "kl:a", 4) == 0);
        CHECK(rl_list_next(b, len, &pos, &k, &kl) && rl_list_next(b, len, &pos, &k, &kl));
        CHECK(kl == 4 && memcmp(k, "kl:c", 4) == 0 && !rl_list_next(b, len, &pos, &k, &kl));
        CHECK_EQ(rl_list_add(b, 20, &len, "kl:d", 4), -1);    /* no room */
        CHECK(!rl_list_next(list, 6, &(size_t){1}, &k, &kl)); /* cut short */
    }

    CHECK_OUT(rl_acquire(&t.ctx, list, sizeof(list) - 1, 10000, &o, &info, &call), RL_ACQUIRED);
    check_answers(&call, NNODES, RL_REPLY_STATUS, 0, "acquire all");
    for (int i = 0; i < NNODES; i++) {
        CHECK_EQ(keys_with(i, keys, 3, info.token), 3);
        long long pttl = admin_int(i, 0, "PTTL kl:c");
        CHECK(pttl > 9000 && pttl <= 10000);
    }
    /* any one of the keys conflicts: the single lock, and a list sharing one key */
    CHECK_OUT(rl_acquire(&t.ctx, "kl:b", 4, 10000, &o, &other, &call), RL_CONFLICT);
    CHECK_OUT(rl_acquire(&t.ctx, list2, sizeof(list2) - 1, 10000, &o, &other, &call), RL_CONFLICT);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(admin_int(i, 0, "EXISTS kl:d"), 0); /* none or all */
    CHECK_OUT(rl_is_held(&t.ctx, list, sizeof(list) - 1, info.token, info.token_len, &call), RL_YES);
    CHECK_OUT(rl_is_held(&t.ctx, list, sizeof(list) - 1, other.token, other.token_len, &call), RL_NO);
    CHECK_OUT(rl_extend(&t.ctx, list, sizeof(list) - 1, info.token, 20000, 0.01, &info, &call), RL_EXTENDED);
    for (int i = 0; i < NNODES; i++) CHECK(admin_int(i, 0, "PTTL kl:b") > 19000);

    /* one key gone on 3 nodes: no quorum holds every key */
    for (int i = 0; i < 3; i++) admin_int(i, 0, "DEL kl:c");
    CHECK_OUT(rl_is_held(&t.ctx, list, sizeof(list) - 1, info.token, info.token_len, &call), RL_NO);
    CHECK_OUT(rl_extend(&t.ctx, list, sizeof(list) - 1, info.token, 20000, 0.01, &info, &call), RL_LOST);
    CHECK_EQ(info.validity_ms, 0);
    /* the release deletes every key of ours all the same */
    CHECK_OUT(rl_release(&t.ctx, list, sizeof(list) - 1, info.token, &call), RL_LOST);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(keys_with(i, keys, 4, NULL), 0);

    /* released on a quorum: true; then the other list gets both of its keys */
    CHECK_OUT(rl_acquire(&t.ctx, list, sizeof(list) - 1, 10000, &o, &info, &call), RL_ACQUIRED);
    CHECK_OUT(rl_release(&t.ctx, list, sizeof(list) - 1, info.token, &call), RL_RELEASED);
    CHECK_OUT(rl_acquire(&t.ctx, list2, sizeof(list2) - 1, 10000, &o, &other, &call), RL_ACQUIRED);
    const char *keys2[2] = {"kl:d", "kl:b"};
    for (int i = 0; i < NNODES; i++) CHECK_EQ(keys_with(i, keys2, 2, other.token), 2);
    CHECK_OUT(rl_release(&t.ctx, list2, sizeof(list2) - 1, other.token, &call), RL_RELEASED);

    /* a caller-chosen token: a second attempt with it is a conflict, and its
     * cleanup leaves the first one's keys (the nonce of the list's first key) */
    rl_opts ot = ONE_TRY;
    ot.token = "caller-token-0123456789";
    ot.token_len = strlen(ot.token);
    CHECK_OUT(rl_acquire(&t.ctx, list, sizeof(list) - 1, 10000, &ot, &info, &call), RL_ACQUIRED);
    CHECK_OUT(rl_acquire(&t.ctx, list, sizeof(list) - 1, 10000, &ot, &other, &call), RL_CONFLICT);
    CHECK_EQ(echo_all(&t, "kl-sync", call.res), NNODES);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(keys_with(i, keys, 3, ot.token), 3);
    CHECK_OUT(rl_release(&t.ctx, list, sizeof(list) - 1, ot.token, &call), RL_RELEASED);
    for (int i = 0; i < NNODES; i++) {
        CHECK_EQ(keys_with(i, keys, 4, NULL), 0);
        CHECK_EQ(admin_int(i, 0, "DEL %b", "kl:a\0a", (size_t)6), 1); /* the nonce, by its TTL else */
    }
    tnet_close(&t);
}

/* A failed lockAll() attempt's cleanup is not waited for: on a fresh
 * connection, and after SCRIPT FLUSH, its NOSCRIPT is retried once the
 * scripts are loaded again; the list's release script must be among them
 * (it was not: the cleanup was lost, our keys stayed until their TTL) */
static void test_net_list_cleanup_noscript(void)
{
    NET_REQUIRE_NODES();
    static const char list[] = "\0\0\4nl:a\0\4nl:b";
    const char *keys[2] = {"nl:a", "nl:b"};
    rl_opts o = ONE_TRY;
    rl_lock_info info;
    rl_call call;
    for (int round = 0; round < 2; round++) {
        tnet t;
        REQUIRE(tnet_open(&t, NNODES) == 0);
        for (int i = 0; i < NNODES; i++) admin_int(i, 0, "DEL nl:a nl:b");
        if (round == 1) {
            CHECK_EQ(echo_all(&t, "nl-connect", call.res), NNODES); /* connected, scripts loaded */
            for (int i = 0; i < NNODES; i++) {
                redisReply *r = admin(i, 0, "SCRIPT FLUSH");
                if (r) freeReplyObject(r);
            }
        }
        for (int i = 0; i < 3; i++) {
            redisReply *r = admin(i, 0, "SET nl:b foreign PX 10000");
            if (r) freeReplyObject(r);
        }
        CHECK_OUT(rl_acquire(&t.ctx, list, sizeof(list) - 1, 10000, &o, &info, &call), RL_CONFLICT);
        CHECK_EQ(echo_all(&t, "nl-sync", call.res), NNODES); /* the queued cleanup has run */
        for (int i = 3; i < NNODES; i++) {
            int left = keys_with(i, keys, 2, info.token);
            if (left)
                check_failf(__FILE__, __LINE__, "round %d: node %d kept %d keys of the failed attempt", round, i, left);
        }
        for (int i = 0; i < NNODES; i++) admin_int(i, 0, "DEL nl:a nl:b");
        tnet_close(&t);
    }
}

static const test_case tests[] = {
    {"quorum_math", test_quorum_math},
    {"acquire_exact_quorum", test_acquire_exact_quorum},
    {"acquire_set_command", test_acquire_set_command},
    {"acquire_conflict_quorum_minus_one", test_acquire_conflict_quorum_minus_one},
    {"acquire_no_quorum", test_acquire_no_quorum},
    {"acquire_validity", test_acquire_validity},
    {"acquire_validity_expired", test_acquire_validity_expired},
    {"acquire_failure_releases_everywhere", test_acquire_failure_releases_everywhere},
    {"acquire_failure_releases_pending", test_acquire_failure_releases_pending},
    {"early_decision", test_early_decision},
    {"retries", test_retries},
    {"retry_then_win", test_retry_then_win},
    {"wait_deadline", test_wait_deadline},
    {"extend", test_extend},
    {"release", test_release},
    {"is_locked", test_is_locked},
    {"bad_args_and_oom", test_bad_args_and_oom},
    {"validity_and_remaining", test_validity_and_remaining},
    {"net_key_list", test_net_key_list},
    {"net_list_cleanup_noscript", test_net_list_cleanup_noscript},
};

const test_suite lock_suite = {tests, N_TESTS(tests)};
