/* unit_tests.c -- C unit tests of the RedLock core: the algorithm over a fake
 * transport and clock, URI parsing, RESP, histograms, and the socket fan-out
 * against real redis-server processes started (and stopped, by pid) here.
 *
 * Usage: unit_tests [substring]   runs the tests whose name contains it.
 * Prints PASS/FAIL per test and ends with "N passed, N failed". */
#define _GNU_SOURCE
#include "rl_conn_struct.h"
#include "rl_conn_test.h"
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/ports.h"
#include "tests/fake.h"
#include "tests/reply_diff.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef RL_HAVE_TLS
#include <openssl/ssl.h>
#endif

/* ======================================================================
 * runner
 * ====================================================================== */

/* ======================================================================
 * algorithm over the fake transport
 * ====================================================================== */
static fake F; /* large: static, reset by fake_init in each test */

static const rl_opts opts0 = {
    .retry_count = 0, .retry_delay_ms = 0, .retry_jitter_ms = 0, .wait_ms = 0, .drift_factor = 0.01};

static int is_lower_hex_token(const char *t)
{
    if (strlen(t) != RL_TOKEN_LEN) return 0;
    for (int i = 0; i < RL_TOKEN_LEN; i++)
        if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f'))) return 0;
    return 1;
}

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

static void test_tokens(void)
{
    char a[RL_TOKEN_LEN + 1], b[RL_TOKEN_LEN + 1];
    CHECK_EQ(rl_make_token(&rl_random_system, a), 0);
    CHECK_EQ(rl_make_token(&rl_random_system, b), 0);
    CHECK(is_lower_hex_token(a));
    CHECK(is_lower_hex_token(b));
    CHECK(strcmp(a, b) != 0);
    /* many tokens from the buffered pool, across refills: all distinct */
    enum { NT = 100 };
    static char many[NT][RL_TOKEN_LEN + 1];
    for (int i = 0; i < NT; i++) CHECK_EQ(rl_make_token(&rl_random_system, many[i]), 0);
    int dup = 0;
    for (int i = 0; i < NT; i++)
        for (int j = i + 1; j < NT; j++) dup += strcmp(many[i], many[j]) == 0;
    CHECK_EQ(dup, 0);

    /* from a fake source: the hex of its bytes, in order */
    fake_random fr;
    memset(&fr, 0, sizeof(fr));
    for (int i = 0; i < RL_TOKEN_BYTES; i++) fr.bytes[i] = (unsigned char)(i * 13 + 0x0f);
    fr.bytes[0] = 0x00;
    fr.bytes[1] = 0xff;
    fr.bytes[2] = 0xa5;
    fr.len = RL_TOKEN_BYTES;
    rl_random rr = {fake_fill, &fr};
    CHECK_EQ(rl_make_token(&rr, a), 0);
    char want[RL_TOKEN_LEN + 1];
    for (int i = 0; i < RL_TOKEN_BYTES; i++) snprintf(want + 2 * i, 3, "%02x", fr.bytes[i]);
    CHECK_STR(a, want);
    CHECK(strncmp(a, "00ffa5", 6) == 0);
    CHECK_EQ(fr.total, RL_TOKEN_BYTES);
    /* a failing source is reported */
    fr.fail = 1;
    CHECK_EQ(rl_make_token(&rr, a), -1);

    /* the acquire token is the fake source's bytes */
    rl_lock_info info;
    fake_init(&F, 3);
    memcpy(F.rnd.bytes, fr.bytes, RL_TOKEN_BYTES);
    F.rnd.len = RL_TOKEN_BYTES;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &opts0, &info, NULL), RL_ACQUIRED);
    CHECK_STR(info.token, want);
    CHECK_STR(F.calls[0].argv[4], want);
}

/* ======================================================================
 * URI parsing
 * ====================================================================== */
typedef struct uri_ok {
    const char *uri;
    const char *host, *socket, *user, *password;
    int port, db, tls;
} uri_ok;

static int str_eq_null(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

static void test_uri_accepted(void)
{
    static const uri_ok cases[] = {
        {"redis://localhost", "localhost", NULL, NULL, NULL, 6379, 0, 0},
        {"redis://127.0.0.1:7000", "127.0.0.1", NULL, NULL, NULL, 7000, 0, 0},
        {"redis://127.0.0.1:7000/3", "127.0.0.1", NULL, NULL, NULL, 7000, 3, 0},
        {"redis://h/", "h", NULL, NULL, NULL, 6379, 0, 0},
        {"redis://h/1000000", "h", NULL, NULL, NULL, 6379, 1000000, 0},
        {"rediss://secure.example:6380", "secure.example", NULL, NULL, NULL, 6380, 0, 1},
        {"rediss://h", "h", NULL, NULL, NULL, 6379, 0, 1},
        {"unix:///var/run/redis.sock", NULL, "/var/run/redis.sock", NULL, NULL, 0, 0, 0},
        {"unix:///x", NULL, "/x", NULL, NULL, 0, 0, 0},
        {"host:1234", "host", NULL, NULL, NULL, 1234, 0, 0},
        {"10.0.0.1", "10.0.0.1", NULL, NULL, NULL, 6379, 0, 0},
        {"my-host_1.local", "my-host_1.local", NULL, NULL, NULL, 6379, 0, 0},
        {"h:1", "h", NULL, NULL, NULL, 1, 0, 0},
        {"h:65535", "h", NULL, NULL, NULL, 65535, 0, 0},
        {"[::1]:6380", "::1", NULL, NULL, NULL, 6380, 0, 0},
        {"[::1]", "::1", NULL, NULL, NULL, 6379, 0, 0},
        {"redis://[fe80::1:2]:7001/2", "fe80::1:2", NULL, NULL, NULL, 7001, 2, 0},
        {"redis://user:pass@h:1/5", "h", NULL, "user", "pass", 1, 5, 0},
        {"redis://:pass@h", "h", NULL, NULL, "pass", 6379, 0, 0},
        {"redis://:p%40ss%3Aw%2F0rd@h", "h", NULL, NULL, "p@ss:w/0rd", 6379, 0, 0},
        {"redis://us%65r%20x:pa%25ss@h", "h", NULL, "user x", "pa%ss", 6379, 0, 0},
        {"redis://u:a@b@h:2", "h", NULL, "u", "a@b", 2, 0, 0},
        {"redis://u:p:q@h", "h", NULL, "u", "p:q", 6379, 0, 0},
        {"rediss://default:s3cret@[::1]:6390/1", "::1", NULL, "default", "s3cret", 6390, 1, 1},
        {"redis://:@h", "h", NULL, NULL, NULL, 6379, 0, 0}, /* empty password = none */
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const uri_ok *c = &cases[k];
        rl_node_conf conf;
        char err[128] = "";
        memset(&conf, 0, sizeof(conf));
        conf.connect_timeout_ms = 123;
        conf.timeout_ms = 456;
        int rc = rl_uri_parse(c->uri, strlen(c->uri), &conf, err, sizeof(err));
        if (rc != 0) {
            check_failf(__FILE__, __LINE__, "%s rejected: %s", c->uri, err);
            continue;
        }
        if (!str_eq_null(conf.host, c->host) || !str_eq_null(conf.socket, c->socket) ||
            !str_eq_null(conf.user, c->user) || !str_eq_null(conf.password, c->password) || conf.port != c->port ||
            conf.database != c->db || conf.tls != c->tls)
            check_failf(__FILE__, __LINE__, "%s: host=%s socket=%s user=%s pass=%s port=%d db=%d tls=%d", c->uri,
                        conf.host ? conf.host : "-", conf.socket ? conf.socket : "-", conf.user ? conf.user : "-",
                        conf.password ? conf.password : "-", conf.port, conf.database, conf.tls);
        CHECK_EQ(conf.connect_timeout_ms, 123); /* timeouts left untouched */
        CHECK_EQ(conf.timeout_ms, 456);
        rl_node_conf_free(&conf);
        CHECK(conf.host == NULL && conf.password == NULL);
    }
    /* length, not NUL: a longer buffer is cut where the caller says */
    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    CHECK_EQ(rl_uri_parse("h:99XYZ", 4, &conf, NULL, 0), 0);
    CHECK_STR(conf.host, "h");
    CHECK_EQ(conf.port, 99);
    rl_node_conf_free(&conf);
}

/* ---- a node's settings, field by field (RL_NODE_CONF_FIELDS): every field is
 * compared, copied, freed and part of the identity ---- */
typedef struct ident_buf {
    char s[2048];
    size_t n;
    int secrets; /* fields that came as secrets */
} ident_buf;

static void ident_put(void *ctx, const char *name, const char *v, size_t len, int secret)
{
    ident_buf *b = ctx;
    char h[16];
    if (secret) { /* as the extension does, a hash of it (here a plain FNV-1a) */
        b->secrets++;
        if (v) {
            snprintf(h, sizeof(h), "h%08x", (unsigned)rl_hash(RL_HASH_INIT, v, len));
            v = h;
            len = strlen(h);
        }
    }
    b->n += (size_t)snprintf(b->s + b->n, sizeof(b->s) - b->n, "|%s=%.*s", name, v ? (int)len : 1, v ? v : "-");
}

static void conf_ident(const rl_node_conf *c, ident_buf *b)
{
    memset(b, 0, sizeof(*b));
    rl_node_conf_identity(c, ident_put, b);
}

/* a conf with every string of the node's own fields set (to name + "-" + tag)
 * and every int to tag; the TLS fields zeroed */
static void conf_fill(rl_node_conf *c, int tag)
{
    char v[64];
    memset(c, 0, sizeof(*c));
#define FILL_STR(f) snprintf(v, sizeof(v), "%s-%d", #f, tag), c->f = strdup(v);
#define FILL_SECRET(f) FILL_STR(f)
#define FILL_INT(f) c->f = tag;
#define FILL_TLS(f)
#define FILL(kind, f) FILL_##kind(f)
    RL_NODE_CONF_FIELDS(FILL)
}

/* The vector registers (zmm0-31 with AVX-512, else ymm0-15), for
 * secret_copy_no_simd: cleared (out NULL), or their contents into out; the
 * bytes read, 0 without AVX (the test then checks nothing). */
#if defined(__x86_64__)
#define VREGS_MAX (32 * 64)
#define VREGS_LO(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define VREGS_HI(M) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)
#define VREG_ZERO(n) "vpxorq %%zmm" #n ", %%zmm" #n ", %%zmm" #n "\n\t"
#define VREG_YMM(n) "vmovdqu %%ymm" #n ", " #n "*32(%0)\n\t"
#define VREG_ZMM(n) "vmovdqu64 %%zmm" #n ", " #n "*64(%0)\n\t"
static size_t vregs_read(unsigned char *out)
{
    int avx512 = __builtin_cpu_supports("avx512f");
    if (!avx512 && !__builtin_cpu_supports("avx")) return 0;
    if (!out) {
        /* zmm16-31: the EVEX forms of memcpy() use them (no vzeroupper needed) */
        if (avx512) __asm__ volatile(VREGS_HI(VREG_ZERO)::: "memory");
        __asm__ volatile("vzeroall" ::: "memory");
        return 0;
    }
    if (!avx512) {
        __asm__ volatile(VREGS_LO(VREG_YMM) : : "r"(out) : "memory");
        return 16 * 32;
    }
    __asm__ volatile(VREGS_LO(VREG_ZMM) VREGS_HI(VREG_ZMM) : : "r"(out) : "memory");
    return 32 * 64;
}

/* how many 8-byte pieces of secret[0..n) the registers hold */
static int vregs_pieces(const char *secret, size_t n)
{
    unsigned char regs[VREGS_MAX];
    size_t len = vregs_read(regs);
    int found = 0;
    for (size_t i = 0; i + 8 <= n; i++) found += memmem(regs, len, secret + i, 8) != NULL;
    return found;
}
#endif

/* A node's secrets are copied byte by byte, never through the vector
 * registers (whose contents the dynamic linker's lazy binding, or a signal,
 * later saves on the stack where no wipe reaches): the registers are
 * cleared, the settings copied (rl_node_conf_copy: the connections', the
 * watchdog's, the subscribers' copies) or a secret duplicated
 * (rl_secret_dup: the CLI's, the extension's), then read. With strdup()
 * (574973c's rl_node_conf_copy) they held pieces of the password. */
static void test_secret_copy_no_simd(void)
{
#if defined(__x86_64__)
    /* static: its own initialisation copies nothing through the registers */
    static const char pw[] = "Simd-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789abcdefghijk"
                             "lmnopqrstuvwxyzABCDEFGHIJ";
    static const char pp[] = "Pass-zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA-9876543210";
    rl_node_conf src, dst;
    memset(&src, 0, sizeof(src));
    src.host = (char *)"h";
    src.port = 1;
    src.user = (char *)"u";
    src.password = (char *)pw;
    src.tls = 1;
    src.tls_conf.passphrase = (char *)pp;
    vregs_read(NULL);
    int rc = rl_node_conf_copy(&dst, &src);
    int in_regs = vregs_pieces(pw, sizeof(pw) - 1) + vregs_pieces(pp, sizeof(pp) - 1);
    CHECK_EQ(rc, 0);
    CHECK_EQ(in_regs, 0);
    if (rc == 0) {
        CHECK_STR(dst.password, pw);
        CHECK_STR(dst.tls_conf.passphrase, pp);
        rl_node_conf_free(&dst);
    }
    vregs_read(NULL);
    char *d = rl_secret_dup(pw, sizeof(pw) - 1);
    in_regs = vregs_pieces(pw, sizeof(pw) - 1);
    CHECK(d != NULL);
    CHECK_EQ(in_regs, 0);
    if (d) CHECK_STR(d, pw);
    rl_secret_free(d);
#endif
}

static void test_conf_fields(void)
{
    rl_node_conf base, copy, other;
    ident_buf bi, ci;
    int fields = 0, secrets = 0;
    conf_fill(&base, 1);
    /* the TLS fields too */
#define TFILL_STR(f) base.tls_conf.f = strdup(#f "-1");
#define TFILL_SECRET(f) TFILL_STR(f)
#define TFILL_INT(f) base.tls_conf.f = 1;
#define TFILL(kind, f) TFILL_##kind(f)
    RL_TLS_CONF_FIELDS(TFILL)
    CHECK_EQ(rl_node_conf_copy(&copy, &base), 0);
    CHECK(rl_node_conf_eq(&base, &copy));
    conf_ident(&base, &bi);
    conf_ident(&copy, &ci);
    CHECK_STR(bi.s, ci.s);
    CHECK(strstr(bi.s, "password-1") == NULL && strstr(bi.s, "passphrase-1") == NULL);
    /* one field changed at a time: not equal, another identity; a string set to
     * NULL as well */
#define VARY_STR(f, obj)                                                                                       \
    for (int pass = 0; pass < 2; pass++) {                                                                     \
        CHECK_EQ(rl_node_conf_copy(&other, &base), 0);                                                         \
        free(obj.f);                                                                                           \
        obj.f = pass ? NULL : strdup(#f "-2");                                                                 \
        conf_ident(&other, &ci);                                                                               \
        if (rl_node_conf_eq(&base, &other)) check_failf(__FILE__, __LINE__, "%s: another value is equal", #f); \
        if (!strcmp(bi.s, ci.s)) check_failf(__FILE__, __LINE__, "%s: not in the identity", #f);               \
        rl_node_conf_free(&other);                                                                             \
    }                                                                                                          \
    fields++;
#define VARY_SECRET(f, obj) VARY_STR(f, obj) secrets++;
#define VARY_INT(f, obj)                                                                                   \
    CHECK_EQ(rl_node_conf_copy(&other, &base), 0);                                                         \
    obj.f = 2;                                                                                             \
    conf_ident(&other, &ci);                                                                               \
    if (rl_node_conf_eq(&base, &other)) check_failf(__FILE__, __LINE__, "%s: another value is equal", #f); \
    if (!strcmp(bi.s, ci.s)) check_failf(__FILE__, __LINE__, "%s: not in the identity", #f);               \
    rl_node_conf_free(&other);                                                                             \
    fields++;
#define VARY_TLS(f, obj)
#define VARY_NODE(kind, f) VARY_##kind(f, other)
#define VARY_TLSF(kind, f) VARY_##kind(f, other.tls_conf)
    RL_NODE_CONF_FIELDS(VARY_NODE)
    RL_TLS_CONF_FIELDS(VARY_TLSF)
    CHECK_EQ(bi.secrets, secrets);
    CHECK_EQ(secrets, 2); /* the password and the TLS passphrase */
    CHECK(fields >= 17);
    /* free leaves nothing */
    rl_node_conf_free(&copy);
    rl_node_conf_free(&base);
#define NULLED_STR(f) CHECK(base.f == NULL);
#define NULLED_SECRET(f) CHECK(base.f == NULL);
#define NULLED_INT(f)
#define NULLED_TLS(f)
#define NULLED(kind, f) NULLED_##kind(f)
#define TNULLED(kind, f) NULLED_##kind(tls_conf.f)
    RL_NODE_CONF_FIELDS(NULLED)
    RL_TLS_CONF_FIELDS(TNULLED)
}

static void test_uri_rejected(void)
{
    static const struct {
        const char *uri;
        size_t len; /* 0: strlen */
    } bad[] = {
        {"", 0},
        {"h\0st:1", 6},
        {"redis://h:0", 0},
        {"redis://h:65536", 0},
        {"redis://h:abc", 0},
        {"redis://h:", 0},
        {"h:0", 0},
        {"h:65536", 0},
        {"h:-1", 0},
        {"h:99999999999", 0},
        {"http://h:1", 0},
        {"tcp://h", 0},
        {"redis+tls://h", 0},
        {"redis://h?db=1", 0},
        {"redis://h#x", 0},
        {"redis://user@h", 0},
        {"redis://:p%4@h", 0},
        {"redis://:p%zz@h", 0},
        {"redis://:p%@h", 0},
        {"redis://:p%00@h", 0},
        {"redis://us%0@h", 0},
        {"redis://u%00:p@h", 0},
        {"redis://", 0},
        {"redis://:pw@", 0},
        {"redis://h/abc", 0},
        {"redis://h/1000001", 0},
        {"redis://h/-1", 0},
        {"unix://", 0},
        {"unix://relative.sock", 0},
        {"[::1", 0},
        {"[::1]x", 0},
        {"[zz::1]:1", 0},
        {"[]:1", 0},
        {"h st", 0},
        {"h/1", 0},
        {":6379", 0},
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        rl_node_conf conf;
        char err[128];
        memset(&conf, 0, sizeof(conf));
        memset(err, 0, sizeof(err));
        size_t len = bad[k].len ? bad[k].len : strlen(bad[k].uri);
        if (rl_uri_parse(bad[k].uri, len, &conf, err, sizeof(err)) == 0) {
            check_failf(__FILE__, __LINE__, "accepted: \"%s\"", bad[k].uri);
            rl_node_conf_free(&conf);
            continue;
        }
        CHECK(err[0] != '\0');
        CHECK(conf.host == NULL && conf.socket == NULL && conf.user == NULL && conf.password == NULL);
    }
    /* a socket path too long for sun_path */
    char longp[200] = "unix:///";
    memset(longp + 8, 'a', 150);
    longp[158] = '\0';
    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    CHECK_EQ(rl_uri_parse(longp, strlen(longp), &conf, NULL, 0), -1);
    /* a host too long */
    char longh[400];
    memset(longh, 'h', 300);
    longh[300] = '\0';
    CHECK_EQ(rl_uri_parse(longh, strlen(longh), &conf, NULL, 0), -1);
    /* tiny error buffer: truncated, terminated */
    char e4[4] = "zzz";
    CHECK_EQ(rl_uri_parse("", 0, &conf, e4, sizeof(e4)), -1);
    CHECK(strlen(e4) <= 3);
    /* user and password within their limits (rl_node_limits), once decoded */
    size_t big = 3 * (size_t)RL_PASSWORD_MAX + 64;
    char *u = malloc(big), err[160];
    CHECK(u != NULL);
    if (!u) return;
    for (int k = 0; k < 5; k++) {
        /* 0 password at the limit, 1 one past it, 2 one past it in %41s, 3 user past it, 4 user at it */
        size_t plen = k == 0 ? RL_PASSWORD_MAX : k <= 2 ? RL_PASSWORD_MAX + 1 : 1;
        size_t ulen = k == 3 ? RL_USER_MAX + 1 : k == 4 ? RL_USER_MAX : 1;
        size_t o = (size_t)snprintf(u, big, "redis://");
        memset(u + o, 'u', ulen);
        o += ulen;
        u[o++] = ':';
        for (size_t i = 0; i < plen; i++) o += (size_t)(k == 2 ? snprintf(u + o, big - o, "%%41") : (u[o] = 'p', 1));
        o += (size_t)snprintf(u + o, big - o, "@h:1");
        memset(&conf, 0, sizeof(conf));
        err[0] = '\0';
        int rc = rl_uri_parse(u, o, &conf, err, sizeof(err));
        CHECK_EQ(rc, k == 0 || k == 4 ? 0 : -1);
        if (rc == 0) {
            CHECK_EQ(strlen(conf.password), plen);
            rl_node_conf_free(&conf);
        } else {
            CHECK_STR(err, k == 3 ? "user is longer than 4096 bytes" : "password is longer than 65536 bytes");
        }
    }
    free(u);
    CHECK_EQ(rl_node_check(RL_FIELD_PASSWORD, 0, "x", RL_PASSWORD_MAX + 1), RL_LIMIT_RANGE);
    CHECK_EQ(rl_node_check(RL_FIELD_USER, 0, "", 0), RL_LIMIT_OK);
}

/* The message of a call without a quorum, the CLI's and the extension's: a
 * failed node with its reason, answered nodes out of the quorum with why,
 * those not awaited last; the voting node is not named. */
static void test_quorum_message(void)
{
    rl_call call;
    memset(&call, 0, sizeof(call));
    call.res[0] = (rl_result){.state = RL_FAILED, .err = RL_E_REFUSED};
    snprintf(call.res[0].reason, sizeof(call.res[0].reason), "connect: Connection refused");
    call.res[1] = (rl_result){.state = RL_ANSWERED, .novote_ms = 57001, .up_ms = 2999};
    call.res[2] = (rl_result){.state = RL_ANSWERED, .novote_ms = 1000, .up_ms = 5000, .novote_clock = 1};
    call.res[3] = (rl_result){.state = RL_ANSWERED};
    call.res[4] = (rl_result){.state = RL_FAILED, .err = RL_E_TIMEOUT};
    call.res[5] = (rl_result){.state = RL_PENDING};
    call.res[6] = (rl_result){.state = RL_PENDING};
    call.answered = 3;
    const char *names[] = {"a:1", "b:2", "c:3", "d:4", "e:5", "f:6", "g:7"};
    const char *want = "lock: could not reach a quorum (4 of 7 nodes needed, 3 answered): a:1 connect: Connection "
                       "refused; b:2 restarted 2 s ago, votes in 58 s; c:3 clock stepped forward 5 s ago, votes in "
                       "1 s; e:5 timeout; not awaited: f:6, g:7";
    char buf[512];
    CHECK_EQ(rl_quorum_message(buf, sizeof(buf), "lock", &call, 7, names), strlen(want));
    CHECK_STR(buf, want);
    CHECK_EQ(rl_quorum_message(NULL, 0, "lock", &call, 7, names), strlen(want));
    char small[20];
    CHECK_EQ(rl_quorum_message(small, sizeof(small), "lock", &call, 7, names), strlen(want));
    CHECK_EQ(strlen(small), sizeof(small) - 1);
    /* nothing failed, one not awaited: no "; " before it has anything to follow */
    call.res[0].state = call.res[4].state = RL_ANSWERED;
    call.res[1].novote_ms = call.res[2].novote_ms = 0;
    call.res[6].state = RL_ANSWERED;
    CHECK_EQ(rl_quorum_message(buf, sizeof(buf), "isLocked", &call, 7, names), strlen(buf));
    CHECK_STR(buf, "isLocked: could not reach a quorum (4 of 7 nodes needed, 3 answered); not awaited: f:6");
    CHECK_EQ(rl_result_why(&call.res[3], buf, sizeof(buf)), 0);
    CHECK_STR(buf, "");
    /* past its grace, waiting for more voters' answers (RL_NOVOTE_NEED_FMT) */
    rl_result need = {.state = RL_ANSWERED, .novote_ms = 1, .up_ms = 61000, .novote_need = 2};
    const char *want_need = "restarted 61 s ago, past its grace, votes when 2 more voting nodes answer in one call";
    CHECK_EQ(rl_result_why(&need, buf, sizeof(buf)), strlen(want_need));
    CHECK_STR(buf, want_need);
}

/* No error message ever contains the password (raw or decoded), and none
 * contains the user's secret-ish parts either. */
static void test_uri_error_never_has_password(void)
{
    static const char *bad[] = {
        "redis://:Sup3rSecret@h:0",
        "redis://:Sup3rSecret@h:65536",
        "redis://:Sup3rSecret@h:port",
        "redis://:Sup3rSecret@",
        "redis://:Sup3rSecret@h/notadb",
        "redis://:Sup3rSecret@h?x=1",
        "redis://:Sup3rSecret%zz@h",
        "redis://:Sup3rSecret%00@h",
        "redis://usr:Sup3rSecret@[zz]:1",
        "redis://usr:Sup3rSecret@h st",
        "redis://%zz:Sup3rSecret@h",
        "redis://usr:Sup3rSecret@[::1",
        "redis://usr:Sup3rSecret@h:1/1000001",
        "redis://Sup3rSecret@h", /* a password mistaken for a user */
        "rediss://usr:Sup3rSecret@[::1]junk",
        "redis://usr:Sup%33rSecret@h:0",
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        rl_node_conf conf;
        char err[512];
        memset(&conf, 0, sizeof(conf));
        memset(err, 0, sizeof(err));
        int rc = rl_uri_parse(bad[k], strlen(bad[k]), &conf, err, sizeof(err));
        CHECK_EQ(rc, -1);
        if (rc == 0) rl_node_conf_free(&conf);
        if (strstr(err, "Sup3rSecret") || strstr(err, "Sup3") || strstr(err, "Secret"))
            check_failf(__FILE__, __LINE__, "error for %s leaks the password: %s", bad[k], err);
    }
}

static void test_node_conf_name(void)
{
    char buf[64];
    rl_node_conf c;
    memset(&c, 0, sizeof(c));
    CHECK_EQ(rl_uri_parse("[::1]:6380", 10, &c, NULL, 0), 0);
    CHECK_EQ(rl_node_conf_name(&c, buf, sizeof(buf)), strlen("[::1]:6380"));
    CHECK_STR(buf, "[::1]:6380");
    rl_node_conf_free(&c);
    CHECK_EQ(rl_uri_parse("redis://:pw@h:7", strlen("redis://:pw@h:7"), &c, NULL, 0), 0);
    rl_node_conf_name(&c, buf, sizeof(buf));
    CHECK_STR(buf, "h:7"); /* never the password */
    /* truncated into a small buffer */
    CHECK_EQ(rl_node_conf_name(&c, buf, 3), 2);
    CHECK_STR(buf, "h:");
    rl_node_conf_free(&c);
    CHECK_EQ(rl_uri_parse("unix:///tmp/r.sock", 18, &c, NULL, 0), 0);
    rl_node_conf_name(&c, buf, sizeof(buf));
    CHECK_STR(buf, "unix:/tmp/r.sock");
    rl_node_conf_free(&c);
}

/* ======================================================================
 * RESP, histograms, validity
 * ====================================================================== */
static void test_resp_format(void)
{
    char buf[256];
    const char *argv[4] = {"SET", "k", "", "a\r\n\0b"};
    size_t lens[4] = {3, 1, 0, 5};
    const char want[] = "*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n$5\r\na\r\n\0b\r\n";
    size_t wl = sizeof(want) - 1;
    memset(buf, '#', sizeof(buf));
    size_t need = rl_resp_format(buf, sizeof(buf), 4, argv, lens);
    CHECK_EQ(need, wl);
    CHECK(memcmp(buf, want, wl) == 0);
    CHECK_EQ(buf[wl], '#'); /* nothing past the end */

    /* exactly the size needed fits */
    memset(buf, '#', sizeof(buf));
    CHECK_EQ(rl_resp_format(buf, wl, 4, argv, lens), wl);
    CHECK(memcmp(buf, want, wl) == 0);
    CHECK_EQ(buf[wl], '#');

    /* one byte short: the size is returned and nothing is written */
    for (size_t cap = 0; cap < wl; cap++) {
        memset(buf, '#', sizeof(buf));
        CHECK_EQ(rl_resp_format(buf, cap, 4, argv, lens), wl);
        int touched = 0;
        for (size_t i = 0; i < sizeof(buf); i++) touched |= buf[i] != '#';
        CHECK(!touched);
    }
    /* NULL buffer with zero capacity: a pure size query */
    CHECK_EQ(rl_resp_format(NULL, 0, 4, argv, lens), wl);

    /* no arguments */
    CHECK_EQ(rl_resp_format(buf, sizeof(buf), 0, argv, lens), 4);
    CHECK(memcmp(buf, "*0\r\n", 4) == 0);

    /* multi-digit lengths and counts */
    static char big[12345];
    memset(big, 'x', sizeof(big));
    const char *av[10];
    size_t al[10];
    for (int i = 0; i < 10; i++) {
        av[i] = big;
        al[i] = i == 9 ? sizeof(big) : (size_t)i;
    }
    size_t n2 = rl_resp_format(NULL, 0, 10, av, al);
    char *out = malloc(n2);
    REQUIRE(out);
    CHECK_EQ(rl_resp_format(out, n2, 10, av, al), n2);
    CHECK(memcmp(out, "*10\r\n$0\r\n\r\n$1\r\nx\r\n", 18) == 0);
    CHECK(memcmp(out + n2 - 12345 - 2 - 8, "$12345\r\nx", 9) == 0);
    CHECK(memcmp(out + n2 - 2, "\r\n", 2) == 0);
    free(out);

    /* the digit writer at its fast paths' edges, against snprintf */
    static const uint64_t nums[] = {0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535, 4294967296ull, UINT64_MAX};
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        char got[24], exp[24];
        memset(got, '#', sizeof(got));
        size_t l = rl_put_uint(got, nums[i]);
        int el = snprintf(exp, sizeof(exp), "%llu", (unsigned long long)nums[i]);
        CHECK_EQ(l, (size_t)el);
        CHECK(memcmp(got, exp, l) == 0);
        CHECK_EQ(got[l], '#');
    }
}

/* the fan-out's fast path for +status and :integer replies gives what
 * hiredis gives, in order, however the stream is cut (tests/reply_diff.h) */
static void test_reply_fast_path(void)
{
    static const char *const parts[] = {
        "+OK\r\n", ":1\r\n", ":0\r\n", ":-5\r\n", ":123456789012345678\r\n", "$3\r\nabc\r\n", "*2\r\n:1\r\n+OK\r\n",
        "*3\r\n+OK\r\n:10000\r\n:-1\r\n", "-ERR x\r\n", "+O\rK\r\n", "+\r\n", ":\r\n", ":-\r\n", ":abc\r\n",
        ":1234567890123456789\r\n", ":+1\r\n", "$-1\r\n", "*-1\r\n", "+a\nb\r\n", "+a\0b\r\n", "+QUEUED\r\n", "$0\r\n\r\n",
        ":-03\r\n", ":-0\r\n", ":00\r\n", ":01\r\n", ":10\r\n", ":-10\r\n",
    };
    const size_t np = sizeof(parts) / sizeof(parts[0]);
    size_t plen[sizeof(parts) / sizeof(parts[0])];
    for (size_t i = 0; i < np; i++) plen[i] = strlen(parts[i]);
    plen[19] = 7; /* "+a\0b\r\n": strlen stops at its NUL */
    static const size_t chunks[] = {0, 1, 2, 3, 5, 7, 64};
    char buf[4096];
    int fast;
    /* the cycle's own answers: taken by the fast path, whole or cut */
    CHECK_EQ(rd_agree("+OK\r\n:1\r\n", 9, 0, &fast), 1);
    CHECK_EQ(fast, 2);
    CHECK_EQ(rd_agree("+OK\r\n:1\r\n", 9, 3, &fast), 1);
    /* a long status line (past the fast path's 256 bytes) and one at its edge */
    for (size_t L = 250; L <= 260; L++) {
        memcpy(buf, ":7\r\n+", 5);
        memset(buf + 5, 'x', L);
        memcpy(buf + 5 + L, "\r\n", 2);
        CHECK_EQ(rd_agree(buf, L + 7, 0, &fast), 1);
        CHECK_EQ(fast, L <= 254 ? 2 : 1); /* a line whose CR is past 256 bytes: hiredis's */
    }
    /* seeded random streams of the parts above and random bytes */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int any_fast = 0;
    for (int round = 0; round < 3000; round++) {
        size_t len = 0;
        int k = 1 + (int)(x % 12);
        for (int j = 0; j < k; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            if (x % 16 == 0 && len + 8 < sizeof(buf)) {
                for (int b = 0; b < 8; b++) buf[len++] = (char)(x >> (8 * b));
                continue;
            }
            size_t pi = (size_t)(x >> 20) % np;
            if (len + plen[pi] >= sizeof(buf)) break;
            memcpy(buf + len, parts[pi], plen[pi]);
            len += plen[pi];
        }
        size_t ch = chunks[(x >> 40) % (sizeof(chunks) / sizeof(chunks[0]))];
        int agree = rd_agree(buf, len, ch, &fast);
        if (agree != 1) fprintf(stderr, "    disagree: round %d, %zu bytes, reads of %zu\n", round, len, ch);
        CHECK_EQ(agree, 1);
        any_fast += fast;
    }
    CHECK(any_fast > 500);
#if defined(HIREDIS_MAJOR) && HIREDIS_MAJOR >= 1
    /* RESP3's double and boolean (hiredis 1.x reads them): an error reply, not a typeless one */
    rl_conn *c = rd_conn();
    REQUIRE(c);
    CHECK_EQ(rlc_feed(c, ",2.5\r\n#t\r\n*2\r\n,1\r\n:1\r\n", 22), 0);
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->slot.type, RL_REPLY_ERROR);
    CHECK(strstr(c->slot.str, "RESP3") != NULL);
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->slot.type, RL_REPLY_ERROR);
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->slot.type, RL_REPLY_ARRAY);
    rl_conn_free(c);
#endif /* (714 with this seed: the fast path was exercised, not only declined) */
}

static void test_latency_histogram(void)
{
    rl_latency l;
    memset(&l, 0, sizeof(l));
    CHECK_EQ(rl_latency_percentile(&l, 0.5), 0);
    CHECK_EQ(rl_latency_percentile(&l, 1.0), 0);

    /* a spread of values; percentiles are monotonic in p, never above the max,
     * and within a quarter-octave of the true order statistic */
    static uint64_t vals[2000];
    uint64_t x = 88172645463325252ull, mx = 0;
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        vals[i] = i < 1000 ? x % 1000 : x % 5000000;
        if (vals[i] > mx) mx = vals[i];
        rl_latency_add(&l, vals[i]);
    }
    CHECK_EQ(l.count, 2000);
    CHECK_EQ(l.max_us, mx);
    uint64_t prev = 0;
    for (int k = 0; k <= 1000; k++) {
        double p = k / 1000.0;
        uint64_t v = rl_latency_percentile(&l, p);
        CHECK(v >= prev);
        CHECK(v <= mx);
        prev = v;
    }
    /* sorted copy for the true order statistic */
    static uint64_t sorted[2000];
    memcpy(sorted, vals, sizeof(vals));
    for (int i = 1; i < 2000; i++) {
        uint64_t v = sorted[i];
        int j = i - 1;
        while (j >= 0 && sorted[j] > v) {
            sorted[j + 1] = sorted[j];
            j--;
        }
        sorted[j + 1] = v;
    }
    static const double ps[] = {0.5, 0.9, 0.99, 0.999};
    for (size_t k = 0; k < 4; k++) {
        uint64_t want = sorted[(size_t)(ps[k] * 2000) - 1];
        uint64_t got = rl_latency_percentile(&l, ps[k]);
        CHECK(got * 4 >= want * 3 && got * 3 <= want * 4 + 12);
    }
    /* the maximum is exact: p100 is the largest value seen */
    CHECK_EQ(rl_latency_percentile(&l, 1.0), mx);

    /* single values: small ones are exact, and p100 of one sample is that sample */
    static const uint64_t singles[] = {
        0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 1000, 12345, 999999, (uint64_t)1 << 40};
    for (size_t k = 0; k < sizeof(singles) / sizeof(singles[0]); k++) {
        rl_latency s;
        memset(&s, 0, sizeof(s));
        rl_latency_add(&s, singles[k]);
        CHECK_EQ(s.max_us, singles[k]);
        uint64_t p100 = rl_latency_percentile(&s, 1.0);
        if (p100 != singles[k])
            check_failf(__FILE__, __LINE__, "one sample %llu: p100 = %llu", (unsigned long long)singles[k],
                        (unsigned long long)p100);
        if (singles[k] < 8) CHECK_EQ(rl_latency_percentile(&s, 0.5), singles[k]);
    }
    /* merge = adding everything to one histogram */
    rl_latency a, b, both;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    memset(&both, 0, sizeof(both));
    for (int i = 0; i < 2000; i++) {
        rl_latency_add(i % 3 ? &a : &b, vals[i]);
        rl_latency_add(&both, vals[i]);
    }
    rl_latency_merge(&a, &b);
    CHECK(memcmp(&a, &both, sizeof(a)) == 0);
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

/* The core's elapsed time keeps counting while the machine is suspended:
 * it reads CLOCK_BOOTTIME (linked with --wrap=clock_gettime to see which
 * clock it asks for; CLOCK_MONOTONIC stops in suspend). */
int __real_clock_gettime(clockid_t id, struct timespec *ts);
static volatile int g_last_clock = -1;
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
    g_last_clock = (int)id;
    return __real_clock_gettime(id, ts);
}

static void test_clock_boottime(void)
{
    g_last_clock = -1;
    uint64_t a = rl_clock_monotonic.now_us(NULL);
    CHECK_EQ(g_last_clock, CLOCK_BOOTTIME);
    struct timespec ts;
    __real_clock_gettime(CLOCK_BOOTTIME, &ts);
    uint64_t b = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    CHECK(b >= a && b - a < 100000);
}

static void test_err_names(void)
{
    for (int e = RL_OK; e <= RL_E_NOMEM; e++) {
        const char *s = rl_err_name(e);
        CHECK(s && *s && strcmp(s, "unknown error") != 0);
    }
    CHECK_STR(rl_err_name(9999), "unknown error");
    CHECK_STR(rl_err_name(-1), "unknown error");
}

static void test_scripts_sha(void)
{
    /* the SHA1s are those of the scripts (redis would answer NOSCRIPT otherwise);
     * verified against real redis in the net tests: here only the shape */
    CHECK_EQ(strlen(rl_script_release_sha), 40);
    CHECK_EQ(strlen(rl_script_extend_sha), 40);
    CHECK(strstr(rl_script_release, "ARGV[1]") && strstr(rl_script_release, "del"));
    CHECK(strstr(rl_script_extend, "pexpire"));
}

static void test_fork_generation(void)
{
    uint64_t g = rl_fork_generation();
    CHECK_EQ(rl_fork_generation(), g);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) _exit(rl_fork_generation() != g ? 0 : 1);
    int st = 0;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ(rl_fork_generation(), g);
}

/* ======================================================================
 * the socket fan-out against real redis-server processes
 *
 * NNODES servers on free 127.0.0.1 ports (and a unix socket each), started
 * here with PR_SET_PDEATHSIG so they never outlive the test binary, and
 * stopped by pid at the end. Every wait is bounded.
 * ====================================================================== */
#define NNODES 5
#define NET_TIMEOUT_MS 1000

typedef struct tnode {
    pid_t pid;
    int port;
    int paused;
    char pw[64]; /* requirepass currently set on it, for the admin connection */
} tnode;

static tnode g_node[NNODES];
static int g_nodes_state; /* 0 not started, 1 up, -1 failed to start */
static char g_dir[64];

static uint64_t mono_us(void) { return rl_clock_monotonic.now_us(NULL); }

static void msleep(int ms)
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

static void net_setup_signals(void)
{
    signal(SIGINT, on_fatal_signal);
    signal(SIGTERM, on_fatal_signal);
    signal(SIGHUP, on_fatal_signal);
    signal(SIGALRM, on_fatal_signal);
    /* a hung test must not hang CI: the whole binary gets 240 s */
    alarm(240);
}

static void node_sock_path(int i, char *buf, size_t len) { snprintf(buf, len, "%s/node%d.sock", g_dir, i); }

/* tests/nodes.sh with args (its `run`, `run-tls` exec redis-server: same pid),
 * its output to logf; REDLOCK_NODES_SH overrides where it is (default: from
 * redlock_core/). */
static pid_t spawn_nodes_sh(const char *logf, const char *const *args)
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
static redisReply *admin(int i, int db, const char *fmt, ...)
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
static long long admin_int(int i, int db, const char *fmt, ...)
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

static int admin_ok(int i, const char *fmt, const char *arg)
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
static int node_start(int i, int port)
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

/* Stop node i by its pid: SIGTERM, bounded wait, then SIGKILL. */
static void node_stop(int i, int sig)
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

static void node_pause(int i)
{
    if (g_node[i].pid > 0 && kill(g_node[i].pid, SIGSTOP) == 0) g_node[i].paused = 1;
}

static void node_resume(int i)
{
    if (g_node[i].pid > 0) kill(g_node[i].pid, SIGCONT);
    g_node[i].paused = 0;
}

static void nodes_stop_all(void)
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

static int nodes_up(void)
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

/* ---- a fan-out over some nodes ---- */
typedef struct tnet {
    rl_conn *conns[RL_MAX_NODES];
    rl_net net;
    rl_transport tp;
    rl_ctx ctx;
    int n;
} tnet;

static int tnet_open_uris(tnet *t, int n, const char *const *uris, int timeout_ms);

/* fmt gets the node's port, e.g. "redis://:pw@127.0.0.1:%d/3" */
static int tnet_open_fmt(tnet *t, int first, int n, const char *fmt)
{
    char buf[RL_MAX_NODES][256];
    const char *uris[RL_MAX_NODES];
    for (int k = 0; k < n; k++) {
        snprintf(buf[k], sizeof(buf[k]), fmt, g_node[first + k].port);
        uris[k] = buf[k];
    }
    return tnet_open_uris(t, n, uris, NET_TIMEOUT_MS);
}

static int tnet_open(tnet *t, int n) { return tnet_open_fmt(t, 0, n, "127.0.0.1:%d"); }

static void tnet_close(tnet *t)
{
    for (int i = 0; i < t->n; i++) rl_conn_free(t->conns[i]);
    t->n = 0;
}

static int reply_is(const rl_result *r, int type, const char *s)
{
    if (r->state != RL_ANSWERED || r->reply.type != type) return 0;
    return !s || (r->reply.len == strlen(s) && strcmp(r->reply.str, s) == 0);
}

/* ECHO payload to every node, waiting for all: returns how many answered it */
static int echo_all(tnet *t, const char *payload, rl_result *res)
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

static void describe(const char *what, const rl_result *res, int n)
{
    for (int i = 0; i < n; i++)
        printf("      %s node %d: state=%d err=%s type=%d str=%s int=%lld reason=%s\n", what, i, res[i].state,
               rl_err_name(res[i].err), res[i].reply.type, res[i].reply.str, res[i].reply.integer, res[i].reason);
}

/* the options of most network tests: one attempt, no wait */
static const rl_opts ONE_TRY = {
    .retry_count = 0, .retry_delay_ms = 10, .retry_jitter_ms = 5, .wait_ms = 0, .drift_factor = 0.01};

#define NET_REQUIRE_NODES()                                   \
    do {                                                      \
        if (!nodes_up()) {                                    \
            check_failf(__FILE__, __LINE__, "no test nodes"); \
            return;                                           \
        }                                                     \
    } while (0)

/* Every node that answered a lock command answered it with the right kind. */
static void check_answers(const rl_call *call, int n, int type, long long integer, const char *what)
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

    /* the scripts' SHA1s are the ones redis computes */
    redisReply *r = admin(0, 0, "SCRIPT LOAD %s", rl_script_release);
    CHECK(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, rl_script_release_sha) == 0);
    if (r) freeReplyObject(r);
    r = admin(0, 0, "SCRIPT LOAD %s", rl_script_extend);
    CHECK(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, rl_script_extend_sha) == 0);
    if (r) freeReplyObject(r);
    const char *lists[15][2] = {
        {rl_script_acquire_all, rl_script_acquire_all_sha},
        {rl_script_release_all, rl_script_release_all_sha},
        {rl_script_extend_all, rl_script_extend_all_sha},
        {rl_script_held_all, rl_script_held_all_sha},
        {rl_script_permit, rl_script_permit_sha},
        {rl_script_permit_trim, rl_script_permit_trim_sha},
        {rl_script_acquire, rl_script_acquire_sha},
        {rl_script_acquire_shared, rl_script_acquire_shared_sha},
        {rl_script_release_shared, rl_script_release_shared_sha},
        {rl_script_extend_shared, rl_script_extend_shared_sha},
        {rl_script_held_shared, rl_script_held_shared_sha},
        {rl_script_shared_confirm, rl_script_shared_confirm_sha},
        {rl_script_fence_raise, rl_script_fence_raise_sha},
        {rl_script_permit_find, rl_script_permit_find_sha},
        {rl_script_fair_leave, rl_script_fair_leave_sha}};
    for (int k = 0; k < 15; k++) {
        r = admin(0, 0, "SCRIPT LOAD %s", lists[k][0]);
        CHECK(r && r->type == REDIS_REPLY_STRING && strcmp(r->str, lists[k][1]) == 0);
        if (r && (r->type != REDIS_REPLY_STRING || strcmp(r->str, lists[k][1]) != 0))
            printf("      list script %d: %s\n", k, r->str);
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

/* semaphores (docs/api.md "Semaphores"): a permit is a quorum on one slot */
static int slot_holders(const char *base, int limit, const char *token, int node)
{
    int k = 0;
    for (int s = 0; s < limit; s++) {
        char key[128];
        int kl = snprintf(key, sizeof(key), "%s", base);
        kl += snprintf(key + kl + 2, sizeof(key) - (size_t)kl - 2, "%d", s) + 2;
        key[strlen(base)] = '\0';
        key[strlen(base) + 1] = 'p';
        redisReply *r = admin(node, 0, "GET %b", key, (size_t)kl);
        k += r && r->type == REDIS_REPLY_STRING && (!token || strcmp(r->str, token) == 0);
        if (r) freeReplyObject(r);
    }
    return k;
}

static void set_slot(int node, const char *base, int s, const char *value)
{
    char key[128];
    size_t bl = strlen(base);
    memcpy(key, base, bl);
    key[bl] = '\0';
    key[bl + 1] = 'p';
    int kl = (int)bl + 2 + snprintf(key + bl + 2, sizeof(key) - bl - 2, "%d", s);
    redisReply *r = admin(node, 0, "SET %b %s PX 10000", key, (size_t)kl, value);
    if (r) freeReplyObject(r);
}

static void del_slots(const char *base, int limit)
{
    for (int i = 0; i < NNODES; i++)
        for (int s = -1; s < limit; s++) {
            char key[128];
            size_t bl = strlen(base);
            memcpy(key, base, bl);
            key[bl] = '\0';
            key[bl + 1] = 'p';
            int kl = (int)bl + 2 + (s < 0 ? snprintf(key + bl + 2, 8, "L") : snprintf(key + bl + 2, 8, "%d", s));
            redisReply *r = admin(i, 0, "DEL %b", key, (size_t)kl);
            if (r) freeReplyObject(r);
        }
}

static void test_net_permit(void)
{
    NET_REQUIRE_NODES();
    tnet t;
    rl_lock_info p[4];
    char *slots[4] = {0};
    size_t sl[4];
    int other;
    rl_call call;
    rl_opts o = ONE_TRY;
    const char *base = "sem:a";
    REQUIRE(tnet_open(&t, NNODES) == 0);
    del_slots(base, 8);
    for (int k = 0; k < 3; k++)
        CHECK_OUT(rl_acquire_permit(&t.ctx, base, 5, 3, 1, 10000, &o, &p[k], &slots[k], &sl[k], &other, &call),
                  RL_ACQUIRED);
    CHECK(slots[0] && slots[1] && slots[2] && rl_key_is_list(slots[0], sl[0]));
    CHECK_EQ(echo_all(&t, "sem-sync", call.res), NNODES);
    for (int i = 0; i < NNODES; i++) {
        CHECK_EQ(slot_holders(base, 3, NULL, i), 3);
        for (int k = 0; k < 3; k++) CHECK_EQ(slot_holders(base, 3, p[k].token, i), 1);
    }
    /* the limit is reached: a fourth is a conflict and sets nothing */
    CHECK_OUT(rl_acquire_permit(&t.ctx, base, 5, 3, 1, 10000, &o, &p[3], &slots[3], &sl[3], &other, &call),
              RL_CONFLICT);
    CHECK(!slots[3]);
    /* another limit while permits are held: RL_LIMIT naming it */
    CHECK_OUT(rl_acquire_permit(&t.ctx, base, 5, 5, 1, 10000, &o, &p[3], &slots[3], &sl[3], &other, &call), RL_LIMIT);
    CHECK_EQ(other, 3);
    /* a permit is released, extended, asked about through its slot list */
    CHECK_OUT(rl_is_held(&t.ctx, slots[1], sl[1], p[1].token, p[1].token_len, &call), RL_YES);
    CHECK_OUT(rl_extend(&t.ctx, slots[1], sl[1], p[1].token, 20000, 0.01, &p[1], &call), RL_EXTENDED);
    CHECK_OUT(rl_release(&t.ctx, slots[1], sl[1], p[1].token, &call), RL_RELEASED);
    CHECK_OUT(rl_is_held(&t.ctx, slots[1], sl[1], p[1].token, p[1].token_len, &call), RL_NO);
    free(slots[1]);
    /* one free: taken in one round trip; weight 2 then finds one free slot: conflict */
    CHECK_OUT(rl_acquire_permit(&t.ctx, base, 5, 3, 2, 10000, &o, &p[3], &slots[3], &sl[3], &other, &call),
              RL_CONFLICT);
    CHECK_OUT(rl_acquire_permit(&t.ctx, base, 5, 3, 1, 10000, &o, &p[1], &slots[1], &sl[1], &other, &call),
              RL_ACQUIRED);
    CHECK_EQ(p[1].attempts, 1);
    for (int k = 0; k < 3; k++) {
        CHECK_OUT(rl_release(&t.ctx, slots[k], sl[k], p[k].token, &call), RL_RELEASED);
        free(slots[k]);
        slots[k] = NULL;
    }
    /* weight 3 of 3: every slot */
    CHECK_OUT(rl_acquire_permit(&t.ctx, base, 5, 3, 3, 10000, &o, &p[0], &slots[0], &sl[0], &other, &call),
              RL_ACQUIRED);
    CHECK_EQ(echo_all(&t, "sem-sync2", call.res), NNODES);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(slot_holders(base, 3, p[0].token, i), 3);
    CHECK_OUT(rl_release(&t.ctx, slots[0], sl[0], p[0].token, &call), RL_RELEASED);
    free(slots[0]);
    slots[0] = NULL;

    /* the quorum is per slot: slot 0 taken on nodes 0, 1, 4 and slot 1 on 2, 3, 4
     * (limit 2): nodes 0, 1 give slot 1, nodes 2, 3 slot 0, node 4 none: no slot has 3
     * (the stored limit, 3, is dropped first: its slots 0, 1 look held) */
    del_slots(base, 0);
    set_slot(0, base, 0, "foreign");
    set_slot(1, base, 0, "foreign");
    set_slot(4, base, 0, "foreign");
    set_slot(2, base, 1, "foreign");
    set_slot(3, base, 1, "foreign");
    set_slot(4, base, 1, "foreign");
    for (int k = 0; k < 8; k++) {
        CHECK_OUT(rl_acquire_permit(&t.ctx, base, 5, 2, 1, 10000, &o, &p[0], &slots[0], &sl[0], &other, &call),
                  RL_CONFLICT);
        CHECK(!slots[0]);
        free(slots[0]);
        slots[0] = NULL;
    }
    CHECK_EQ(echo_all(&t, "sem-sync3", call.res), NNODES);
    for (int i = 0; i < NNODES; i++) CHECK_EQ(slot_holders(base, 2, p[0].token, i), 0); /* cleaned up */
    /* slot 0 taken on nodes 2, 3 too: nodes 0 to 3 give slot 1, a quorum on it */
    del_slots(base, 0);
    set_slot(2, base, 0, "foreign");
    set_slot(3, base, 0, "foreign");
    {
        redisReply *r = admin(2, 0, "DEL %b", "sem:a\0p1", (size_t)8);
        if (r) freeReplyObject(r);
        r = admin(3, 0, "DEL %b", "sem:a\0p1", (size_t)8);
        if (r) freeReplyObject(r);
    }
    CHECK_OUT(rl_acquire_permit(&t.ctx, base, 5, 2, 1, 10000, &o, &p[0], &slots[0], &sl[0], &other, &call),
              RL_ACQUIRED);
    CHECK(slots[0] && sl[0] == 1 + 2 + 8 && memcmp(slots[0] + 3, "sem:a\0p1", 8) == 0);
    if (!slots[0]) describe("permit", call.res, NNODES);
    CHECK_EQ(echo_all(&t, "sem-sync4", call.res), NNODES);
    int ours = 0;
    for (int i = 0; i < NNODES; i++) ours += slot_holders(base, 2, p[0].token, i);
    CHECK_EQ(ours, 4);
    free(slots[0]);
    del_slots(base, 8);
    /* (and what the attempts remembered, "sem:a\0pT" token, by its TTL else) */
    for (int i = 0; i < NNODES; i++) {
        redisReply *r = admin(i, 0, "FLUSHDB");
        if (r) freeReplyObject(r);
    }
    tnet_close(&t);
}

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
    int dead = free_port();
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

static int contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

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

/* A fan-out encodes its command once for every node (a 2048-byte buffer in
 * rl_net_fanout) and encodes per node what does not fit: SETs of values
 * whose encoding ends just under, at and just over that size, and far over
 * it, land byte for byte on every node (length, first and last bytes). */
static void arg_push(rl_cmd *cmd, const char *s);
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

/* appends one argument to a command built by hand */
static void arg_push(rl_cmd *cmd, const char *s)
{
    cmd->argv[cmd->argc] = s;
    cmd->argvlen[cmd->argc++] = strlen(s);
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

/* ---- a scripted node: a thread on a unix socket sends, for the k-th
 * request it reads, the k-th canned answer (bytes chosen by the test) ---- */
typedef struct scripted {
    char path[108];
    int lfd;
    const char *const *answers;
    int nanswers;
    pthread_t th;
} scripted;

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

static int scripted_start(scripted *s, const char *const *answers, int n)
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

static void scripted_stop(scripted *s)
{
    pthread_join(s->th, NULL);
    close(s->lfd);
    unlink(s->path);
}

/* the answers to the SCRIPT LOADs of a connect (rlc_queue_scripts: 17 scripts) */
#define HS_SHA "$40\r\n0123456789012345678901234567890123456789\r\n"
/* every new connection asks INFO server and INFO persistence first (the
 * identity, also with one node); refused here: the node votes unchecked */
#define HS_INFO "-NOPERM no INFO\r\n-NOPERM no INFO\r\n"
#define HS_REPLIES HS_INFO HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA HS_SHA

/* A node that answers one command with two replies must not have the extra
 * one taken as the answer to the next command. */
static void test_net_hostile_extra_reply(void)
{
    NET_REQUIRE_NODES(); /* for g_dir */
    static const char *const answers[] = {HS_REPLIES ":1\r\n:999\r\n", ":0\r\n"};
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

/* A node whose permit answer overflows a number (what the first slot
 * parser added into a signed long with no bound, then wrote below its
 * bitmap) over a real socket and the reply parser: a failed node, and the
 * attempt's trim goes to it; restore's find the same */
static void test_net_permit_hostile(void)
{
    NET_REQUIRE_NODES(); /* for g_dir */
    static const char *const acquire[] = {HS_REPLIES "$41\r\n18446744073709551552-18446744073709551615\r\n", ":0\r\n"};
    static const char *const find[] = {HS_REPLIES "$19\r\n9223372036854775808\r\n"};
    for (int k = 0; k < 2; k++) {
        scripted srv;
        tnet t;
        REQUIRE(scripted_start(&srv, k ? find : acquire, k ? 1 : 2) == 0);
        char fmt[160];
        snprintf(fmt, sizeof(fmt), "unix://%s", srv.path);
        if (tnet_open_fmt(&t, 0, 1, fmt) == 0) {
            rl_opts o = ONE_TRY;
            rl_lock_info info;
            rl_call call;
            char *slots = NULL;
            size_t sl;
            int other = 0, found = 0;
            if (k)
                CHECK_OUT(rl_find_permit(&t.ctx, "h", 1, 64, "tok0123456789abcdef", 19, &slots, &sl, &found, &call),
                          RL_NO_QUORUM);
            else
                CHECK_OUT(rl_acquire_permit(&t.ctx, "h", 1, 64, 1, 10000, &o, &info, &slots, &sl, &other, &call),
                          RL_NO_QUORUM);
            CHECK(!slots);
            CHECK_EQ(call.res[0].err, RL_E_PROTO);
            tnet_close(&t);
        }
        scripted_stop(&srv);
    }
}

/* ======================================================================
 * safety under stalls and faults (issue: what a lock reports is true, no
 * release is ever lost)
 * ====================================================================== */
static int tnet_open_uris(tnet *t, int n, const char *const *uris, int timeout_ms)
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

/* after a resume: bounded wait until node i holds no key in db (a caller
 * that needs the node to have run everything drains first) */
static long long wait_dbsize_zero(int i, int db, int ms)
{
    long long n = -1;
    for (int k = 0; k < ms / 20; k++) {
        n = admin_int(i, db, "DBSIZE");
        if (n == 0) break;
        msleep(20);
    }
    return n;
}

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
    for (int i = 0; i < 3; i++) rl_conn_set_timeouts(t->conns[i], 200, 50);
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
        CHECK_OUT(rl_acquire(&t.ctx, key, strlen(key), 200, &o, &info, &call), RL_ACQUIRED);
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
    CHECK_OUT(rl_acquire(&t.ctx, "owed:L", 6, 200, &o, &info, &call), RL_ACQUIRED);
    CHECK_EQ(t.conns[P]->owed_n, 1);
    node_resume(P);
    CHECK_EQ(echo_all(&t, "after", res), 3);
    CHECK_EQ(t.conns[P]->owed_n, 0);
    CHECK_EQ(wait_dbsize_zero(P, 0, 3000), 0);
    tnet_close(&t);
}

/* ---- subscriber connections (rl_wait.c) against real nodes ---- */
static int subs_idle(void *ud)
{
    const rl_subs *s = ud;
    for (int i = 0; i < s->net.n; i++)
        if (rl_conn_busy(s->net.conns[i])) return 0;
    return 1;
}

/* subscriber connections to nodes 0..n-1, both timeouts timeout_ms */
static int subs_open(rl_conn **subs, int n, int timeout_ms)
{
    for (int i = 0; i < n; i++) {
        char uri[64], err[128];
        rl_node_conf conf;
        memset(&conf, 0, sizeof(conf));
        snprintf(uri, sizeof(uri), "127.0.0.1:%d", g_node[i].port);
        if (rl_uri_parse(uri, strlen(uri), &conf, err, sizeof(err)) != 0) return -1;
        conf.connect_timeout_ms = timeout_ms;
        conf.timeout_ms = timeout_ms;
        subs[i] = rl_conn_new_subscriber(&conf);
        rl_node_conf_free(&conf);
        if (!subs[i]) return -1;
    }
    return 0;
}

/* A node whose SUBSCRIBE could not be queued (its queue full: a node hung
 * behind hundreds of waits) with its connection still open is not
 * subscribed: it must not count toward the quorum of confirmations a wait
 * needs before it sleeps (issue 19, item 8). Nodes: A answers, B cannot
 * queue, C is paused; only A confirms, so ready() waits for C until the
 * nodes' timeouts instead of returning at once. */
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

/* Issue 22: a connection given up as unreachable is replaced in the
 * background; a release sent meanwhile waits behind the new connection's PING
 * gate and lands; the node is used again. (The silent partition itself is
 * made in tests/netfault: here the abandon is called directly.) */
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

static void test_net_subscribe_not_queued(void)
{
    NET_REQUIRE_NODES();
    rl_conn *subs[3];
    rl_subs s;
    rl_waiter w;
    const int B = 1, C = 2;
    REQUIRE(subs_open(subs, 3, 200) == 0);
    rl_subs_init(&s, subs, 3, &rl_clock_monotonic, &w);
    /* every connection open and idle */
    REQUIRE(w.subscribe(w.ctx, "subq:a", 6, 0, NULL) == 0);
    w.unsubscribe(w.ctx);
    rl_net_listen(&s.net, mono_us() + 2000000, subs_idle, &s);
    REQUIRE(subs_idle(&s));
    for (int i = 0; i < 3; i++) REQUIRE(rl_conn_is_open(subs[i]));
    /* B: a queue with no room left (entries with nothing in flight: no reply comes) */
    while (rlc_q_push(subs[B], EXP_SKIP, RL_OP_OTHER, 0, mono_us()) == 0 && subs[B]->qlen < QMAX - 64) {}
    node_pause(C);
    REQUIRE(w.subscribe(w.ctx, "subq:b", 6, 0, NULL) == 0);
    uint64_t t0 = mono_us();
    w.ready(w.ctx, t0 + 2000000);
    uint64_t el = mono_us() - t0;
    if (el < 300000)
        check_failf(__FILE__, __LINE__, "ready() returned after %llu us: B counted as subscribed",
                    (unsigned long long)el);
    node_resume(C);
    w.unsubscribe(w.ctx);
    for (int i = 0; i < 3; i++) rl_conn_free(subs[i]);
}

/* A waiter's SET and then its release, on every node (a holder for 1 ms):
 * each node sends "acquired" and then the release. The "acquired" of node
 * i is older than the release of node i, and must not cancel the counting
 * of that release (node i+1's "acquired" arriving after node i's release
 * did: the release was never reported and the wait ran to its retry timer,
 * the missed wake-up of about 1 in 200 waits). */
static void test_net_wake_acquired_then_released(void)
{
    NET_REQUIRE_NODES();
    rl_conn *subs[3];
    rl_subs s;
    rl_waiter w;
    REQUIRE(subs_open(subs, 3, 500) == 0);
    rl_subs_init(&s, subs, 3, &rl_clock_monotonic, &w);
    REQUIRE(w.subscribe(w.ctx, "wakeorder:k", 11, 0, NULL) == 0);
    w.ready(w.ctx, mono_us() + 2000000);
    rl_net_listen(&s.net, mono_us() + 2000000, subs_idle, &s); /* every node's confirmation */
    REQUIRE(subs_idle(&s));
    /* what the acquire and release scripts publish, node after node, before we read any */
    static const char chan[] = RL_WAKE_CHANNEL "wakeorder:k\0"
                                               "0";
    for (int i = 0; i < 3; i++) {
        CHECK(admin_int(i, 0, "PUBLISH %b %s", chan, sizeof(chan) - 1, "acquired") == 1);
        CHECK(admin_int(i, 0, "PUBLISH %b %s", chan, sizeof(chan) - 1, "1 0123456789abcdef") == 1);
    }
    /* as wait_for_release does: an "acquired" sends it back to waiting */
    rl_wake ev;
    int kind = RL_WAKE_TIMER;
    uint64_t until = mono_us() + 1000000;
    for (int k = 0; k < 8; k++) {
        kind = w.wait(w.ctx, until, &ev);
        if (kind != RL_WAKE_ACQUIRED) break;
    }
    if (kind != RL_WAKE_RELEASED)
        check_failf(__FILE__, __LINE__, "the release was not reported (last event %d, timer %d)", kind, RL_WAKE_TIMER);
    w.unsubscribe(w.ctx);
    for (int i = 0; i < 3; i++) rl_conn_free(subs[i]);
}

/* A release that one node announced alone for RL_WAKE_GRACE_US (the other
 * nodes' servers slow to run it: a loaded machine) is reported from that
 * node's word, and the attempt it sends fails on the nodes that have not run
 * the release yet. Their messages, when they come, complete a quorum for
 * the first time: that is news, and must wake the waiter again (ignored as
 * the release already reported, the waiter slept to its retry timer:
 * tests/fair/release_wakes.phpt woke 4011 ms after the release under load). */
static void test_net_wake_late_quorum(void)
{
    NET_REQUIRE_NODES();
    rl_conn *subs[3];
    rl_subs s;
    rl_waiter w;
    REQUIRE(subs_open(subs, 3, 500) == 0);
    rl_subs_init(&s, subs, 3, &rl_clock_monotonic, &w);
    REQUIRE(w.subscribe(w.ctx, "wakelate:k", 10, 0, NULL) == 0);
    w.ready(w.ctx, mono_us() + 2000000);
    rl_net_listen(&s.net, mono_us() + 2000000, subs_idle, &s);
    REQUIRE(subs_idle(&s));
    static const char chan[] = RL_WAKE_CHANNEL "wakelate:k\0"
                                               "0";
    rl_wake ev;
    CHECK(admin_int(0, 0, "PUBLISH %b %s", chan, sizeof(chan) - 1, "1 fedcba9876543210") == 1);
    CHECK_EQ(w.wait(w.ctx, mono_us() + 1000000, &ev), RL_WAKE_RELEASED); /* node 0 alone, after the grace */
    for (int i = 1; i < 3; i++)
        CHECK(admin_int(i, 0, "PUBLISH %b %s", chan, sizeof(chan) - 1, "1 fedcba9876543210") == 1);
    uint64_t t0 = mono_us();
    int kind = w.wait(w.ctx, t0 + 1000000, &ev);
    if (kind != RL_WAKE_RELEASED)
        check_failf(__FILE__, __LINE__, "the quorum completed late was not reported (event %d after %llu us)", kind,
                    (unsigned long long)(mono_us() - t0));
    /* and once: the third node's message is old news */
    CHECK_EQ(w.wait(w.ctx, mono_us() + 50000, &ev), RL_WAKE_TIMER);
    w.unsubscribe(w.ctx);
    for (int i = 0; i < 3; i++) rl_conn_free(subs[i]);
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
    for (int i = 0; i < 3; i++) REQUIRE(node_start(i, port[i]) == 0);
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

#ifdef RL_HAVE_TLS
/* A TLS node of tests/nodes.sh (run-tls KIND: tls, mtls), on certificates of
 * its own in g_dir/tls, and a fan-out of one connection to it. */
typedef struct tls_node {
    pid_t pid;
    int port;
    char certs[96], logf[96];
    tnet t;
} tls_node;

static void tls_file(const tls_node *n, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", n->certs, name);
}

static int tls_node_start(tls_node *n, const char *kind)
{
    char portbuf[16];
    int st = 0;
    memset(n, 0, sizeof(*n));
    snprintf(n->certs, sizeof(n->certs), "%s/tls", g_dir);
    snprintf(n->logf, sizeof(n->logf), "%s/tls.log", g_dir);
    const char *mk[] = {"certs", n->certs, NULL};
    pid_t p = spawn_nodes_sh(n->logf, mk);
    if (p <= 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return -1;
    n->port = free_port();
    snprintf(portbuf, sizeof(portbuf), "%d", n->port);
    const char *run[] = {"run-tls", portbuf, g_dir, "tlsnode", n->certs, kind, NULL};
    n->pid = spawn_nodes_sh(n->logf, run);
    return n->pid > 0 ? 0 : -1;
}

/* n->t over one connection with conf (TLS to the node, trusting its CA) */
static int tls_node_conn(tls_node *n, rl_node_conf *conf)
{
    char uri[64], err[128], ca[128];
    memset(conf, 0, sizeof(*conf));
    snprintf(uri, sizeof(uri), "rediss://127.0.0.1:%d", n->port);
    tls_file(n, "ca.crt", ca, sizeof(ca));
    if (rl_uri_parse(uri, strlen(uri), conf, err, sizeof(err)) != 0) return -1;
    conf->tls_conf.cafile = strdup(ca);
    conf->connect_timeout_ms = 2000;
    conf->timeout_ms = 2000;
    return 0;
}

static void tls_net(tnet *t, rl_conn *c)
{
    memset(t, 0, sizeof(*t));
    t->conns[0] = c;
    t->n = 1;
    t->net = (rl_net){.conns = t->conns, .n = 1, .clock = &rl_clock_monotonic};
}

/* ECHO until the node answers (it is starting: refused, back-off, then up) */
static int tls_wait_up(tnet *t)
{
    rl_result res[1];
    for (int k = 0; k < 100; k++) {
        if (echo_all(t, "hello", res) == 1) return 0;
        msleep(100);
    }
    return -1;
}

static void tls_node_stop(tls_node *n)
{
    char cmd[400];
    if (n->pid > 0) {
        kill(n->pid, SIGKILL);
        waitpid(n->pid, NULL, 0);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s/tlsnode.log'", n->certs, n->logf, g_dir);
    if (system(cmd) != 0) {}
}

/* TLS session resumption: a connection opened again resumes the session of
 * the one before (no full handshake), also under TLS 1.3, whose tickets come
 * after the handshake. */
static void test_net_tls_resumption(void)
{
    NET_REQUIRE_NODES(); /* for g_dir */
    tls_node n;
    rl_node_conf conf;
    REQUIRE(tls_node_start(&n, "tls") == 0);
    REQUIRE(tls_node_conn(&n, &conf) == 0);
    tnet t;
    tls_net(&t, rl_conn_new(&conf));
    rl_node_conf_free(&conf);
    REQUIRE(t.conns[0] != NULL);
    REQUIRE(tls_wait_up(&t) == 0);
    rl_result res[1];
    rl_conn *c = t.conns[0];
    CHECK_EQ(SSL_session_reused((SSL *)c->sess.tls), 0); /* the first: a full handshake */
    /* TLS 1.3, then 1.2 (CONFIG SET: for the connections after it) */
    const char *protos[2] = {"TLSv1.3", "TLSv1.2"};
    for (int v = 0; v < 2; v++) {
        if (v == 1) {
            rl_cmd cfg;
            memset(&cfg, 0, sizeof(cfg));
            const char *a[4] = {"CONFIG", "SET", "tls-protocols", "TLSv1.2"};
            cfg.argc = 4;
            for (int k = 0; k < 4; k++) cfg.argv[k] = a[k], cfg.argvlen[k] = strlen(a[k]);
            REQUIRE(rl_net_fanout(&t.net, &cfg, res, 1, NULL, NULL) == 0 && reply_is(&res[0], RL_REPLY_STATUS, "OK"));
            rl_conn_close(c);
            CHECK_EQ(echo_all(&t, "v1.2", res), 1); /* a 1.3 session does not resume 1.2: a full handshake */
        }
        uint64_t connects = c->st.connects;
        for (int round = 1; round <= 2; round++) {
            /* closed as a fork child or a stale check closes it: no close_notify */
            rl_conn_close(c);
            CHECK_EQ(echo_all(&t, "again", res), 1);
            CHECK_EQ(c->st.connects, connects + (uint64_t)round);
            CHECK_EQ(c->sess.tls ? SSL_session_reused((SSL *)c->sess.tls) : -1, 1);
            if (c->sess.tls) CHECK_STR(SSL_get_version((SSL *)c->sess.tls), protos[v]);
        }
    }
    tnet_close(&t);
    tls_node_stop(&n);
}

/* A connection wipes its TLS passphrase once its client key is loaded (a
 * pooled connection lives as long as the worker); a connection made later
 * from its settings takes its TLS context along (rl_conn_tls_share), since
 * it could not open the key itself. Against a node that wants client
 * certificates (mtls), with the passphrase-protected key. */
static void test_net_tls_passphrase_dropped(void)
{
    NET_REQUIRE_NODES(); /* for g_dir */
    tls_node n;
    rl_node_conf conf;
    char cert[128], key[128];
    REQUIRE(tls_node_start(&n, "mtls") == 0);
    REQUIRE(tls_node_conn(&n, &conf) == 0);
    tls_file(&n, "client.crt", cert, sizeof(cert));
    tls_file(&n, "client-enc.key", key, sizeof(key));
    conf.tls_conf.local_cert = strdup(cert);
    conf.tls_conf.local_pk = strdup(key);
    conf.tls_conf.passphrase = strdup("tls-key-passphrase"); /* tests/nodes.sh TLS_PASSPHRASE */
    tnet a, b, c;
    tls_net(&a, rl_conn_new(&conf));
    rl_node_conf_free(&conf);
    REQUIRE(a.conns[0] != NULL);
    CHECK(rl_conn_conf(a.conns[0])->tls_conf.passphrase != NULL); /* not needed yet: kept */
    REQUIRE(tls_wait_up(&a) == 0);
    CHECK(rl_conn_conf(a.conns[0])->tls_conf.passphrase == NULL); /* the key is loaded: wiped */
    /* the same connection connects again (its context kept) */
    rl_result res[1];
    rl_conn_close(a.conns[0]);
    CHECK_EQ(echo_all(&a, "again", res), 1);
    /* a copy of its settings, with its context: connects; without: cannot load the key */
    tls_net(&b, rl_conn_new(rl_conn_conf(a.conns[0])));
    rl_conn_tls_share(b.conns[0], a.conns[0]);
    CHECK_EQ(echo_all(&b, "shared", res), 1);
    tls_net(&c, rl_conn_new(rl_conn_conf(a.conns[0])));
    CHECK_EQ(echo_all(&c, "alone", res), 0);
    CHECK(contains(res[0].reason, "client certificate"));
    tnet_close(&a);
    CHECK_EQ(echo_all(&b, "after", res), 1); /* the context outlives the connection it came from */
    tnet_close(&b);
    tnet_close(&c);
    tls_node_stop(&n);
}
#define NET_TLS_TESTS \
    {"net_tls_resumption", test_net_tls_resumption}, {"net_tls_passphrase_dropped", test_net_tls_passphrase_dropped},
#else
#define NET_TLS_TESTS
#endif

#define NET_TESTS                                                                                                 \
    {"net_basic", test_net_basic}, {"net_key_list", test_net_key_list}, {"net_permit", test_net_permit},          \
        {"net_list_cleanup_noscript", test_net_list_cleanup_noscript}, {"net_paused_node", test_net_paused_node}, \
        {"net_restart_reconnect", test_net_restart_reconnect}, {"net_refused_backoff", test_net_refused_backoff}, \
        {"net_auth", test_net_auth}, {"net_select_db", test_net_select_db},                                       \
        {"net_script_flush", test_net_script_flush}, {"net_unix_socket", test_net_unix_socket},                   \
        {"net_conn_check", test_net_conn_check}, {"net_fork", test_net_fork},                                     \
        {"net_reply_sizes", test_net_reply_sizes}, {"net_encoded_once", test_net_encoded_once},                   \
        {"net_late_noscript_release", test_net_late_noscript_release},                                            \
        {"net_timed_out_noscript_release", test_net_timed_out_noscript_release},                                  \
        {"net_late_noscript_set_not_resent", test_net_late_noscript_set_not_resent},                              \
        {"net_set_timeouts", test_net_set_timeouts}, {"net_hostile_extra_reply", test_net_hostile_extra_reply},   \
        {"net_permit_hostile", test_net_permit_hostile},                                                          \
        {"net_drain_after_handshake", test_net_drain_after_handshake},                                            \
        {"net_release_not_overtaken", test_net_release_not_overtaken},                                            \
        {"net_release_not_dropped", test_net_release_not_dropped}, {"net_poll_error", test_net_poll_error},       \
        {"net_owed_releases_bounded", test_net_owed_releases_bounded},                                            \
        {"net_subscribe_not_queued", test_net_subscribe_not_queued},                                              \
        {"net_wake_late_quorum", test_net_wake_late_quorum},                                                      \
        {"net_wake_acquired_then_released", test_net_wake_acquired_then_released},                                \
        {"net_abandon_replays_release", test_net_abandon_replays_release},                                        \
        {"net_failed_attempt_no_wait", test_net_failed_attempt_no_wait},                                          \
        {"net_set_behind_gate_sent", test_net_set_behind_gate_sent},                                              \
        {"net_backoff_keeps_quorum", test_net_backoff_keeps_quorum}, {"net_same_server", test_net_same_server},   \
        {"net_auth_backoff_reason", test_net_auth_backoff_reason}, NET_TLS_TESTS

/* ====================================================================== */
/* ---- restart-safe quorum (docs/api.md "Restarted nodes") ---- */

/* INFO's answer, parsed without allocation: the fields we need, whatever
 * else, in any order; hostile input leaves the fields unset */
static void test_info_parse(void)
{
    rl_info in;
    static const char srv[] = "# Server\r\nredis_version:7.0.15\r\nrun_id:0123456789abcdef0123456789abcdef01234567\r\n"
                              "tcp_port:6379\r\nserver_time_usec:1700000000123456\r\nuptime_in_seconds:42\r\n"
                              "uptime_in_days:0\r\n";
    rl_info_init(&in);
    rl_info_parse(srv, sizeof(srv) - 1, &in);
    CHECK_STR(in.run_id, "0123456789abcdef0123456789abcdef01234567");
    CHECK_EQ(in.uptime_s, 42);
    CHECK_EQ(in.server_time_us, 1700000000123456LL);
    CHECK_EQ(in.aof, -1); /* not in this section */
    static const char per[] = "# Persistence\r\nloading:0\r\naof_enabled:1\r\naof_rewrite_in_progress:0\r\n";
    rl_info_parse(per, sizeof(per) - 1, &in);
    CHECK_EQ(in.aof, 1);
    CHECK_EQ(in.uptime_s, 42); /* what it does not name is kept */
    /* \n line ends, no final newline */
    rl_info_init(&in);
    rl_info_parse("aof_enabled:0\nuptime_in_seconds:7", 33, &in);
    CHECK_EQ(in.aof, 0);
    CHECK_EQ(in.uptime_s, 7);
    /* not believed: a field inside a line, a bad run_id, numbers with junk, too long, aof 2 */
    static const char *const bad[] = {"xuptime_in_seconds:5\r\n",
                                      "uptime_in_seconds:5x\r\n",
                                      "uptime_in_seconds:\r\n",
                                      "uptime_in_seconds:-5\r\n",
                                      "uptime_in_seconds:12345678901234567890\r\n",
                                      "aof_enabled:2\r\n",
                                      "run_id:0123456789ABCDEF0123456789abcdef01234567\r\n",
                                      "run_id:0123456789abcdef0123456789abcdef0123456\r\n",
                                      "run_id:0123456789abcdef0123456789abcdef012345678\r\n"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        rl_info_init(&in);
        rl_info_parse(bad[k], strlen(bad[k]), &in);
        CHECK(in.uptime_s == -1 && in.aof == -1 && in.run_id[0] == '\0');
    }
    /* the bytes are not a C string: a NUL does not end the parse, the length does */
    static const char nul[] = "a\0b\r\nuptime_in_seconds:9\r\nuptime_in_seconds:1";
    rl_info_init(&in);
    rl_info_parse(nul, sizeof(nul) - 1 - 20, &in);
    CHECK_EQ(in.uptime_s, 9);
}

/* one node's answer to an acquisition with the maxttl key: OK or nil,
 * [stored maxttl, its age], and who answered */
static void vote_res(rl_result *r, int ok, long long maxttl, long long age, uint32_t inc, uint64_t up_since, int aof,
                     int restarted)
{
    memset(r, 0, sizeof(*r));
    r->state = RL_ANSWERED;
    r->reply.type = ok ? RL_REPLY_STATUS : RL_REPLY_NIL;
    if (ok) {
        strcpy(r->reply.str, "OK");
        r->reply.len = 2;
    }
    r->reply.naux = 2;
    r->reply.aux[0] = maxttl;
    r->reply.aux[1] = age;
    r->id = (rl_ident){.up_since_us = up_since,
                       .inc = inc,
                       .known = 1,
                       .aof = (unsigned char)aof,
                       .restarted = (unsigned char)restarted};
}

static void test_vote_mask(void)
{
    const uint64_t now = 1000000000000ull;                                 /* us */
    const uint64_t old = now - 3600ull * 1000000u, young = now - 2000000u; /* up 1 h, up 2 s */
    rl_restart rs;
    rl_result res[5];
    int wait;

    /* a node restarted empty (another run_id, AOF off) with the others'
     * maxttl 30 s: out for 30 s + drift since its start, counted 1 s short */
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    vote_res(&res[0], 1, 0, -1, 2, young, 0, 1);
    for (int i = 1; i < 5; i++) vote_res(&res[i], i > 2, 30000, 600000, 1, old, 0, 0);
    uint64_t m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m, 0x1e);
    CHECK_EQ(wait, 0);
    CHECK_EQ(res[0].novote_ms, 30000 + 300 + 2 - 1000);
    CHECK_EQ(res[0].up_ms, 2000);
    CHECK_EQ(rs.maxttl_ms, 30000);
    CHECK_EQ(rs.sus_inc[0], 2);
    /* up for the grace: it votes, and keeps voting (judged once per incarnation) */
    vote_res(&res[0], 1, 30000, 5, 2, young, 0, 1);
    m = rl_vote_mask(&rs, res, 5, young + 32400000u, 0.01, &wait);
    CHECK_EQ(m, 0x1f);
    CHECK_EQ(rs.ok_inc[0], 2);
    CHECK_EQ(res[0].novote_ms, 0);
    /* AOF on, or no INFO: votes at once */
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    vote_res(&res[0], 1, 0, -1, 2, young, 1, 0);
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m & 1, 1);
    vote_res(&res[0], 1, 0, -1, 2, young, 0, 1);
    res[0].id.known = 0;
    res[0].id.no_info = 1;
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m & 1, 1);

    /* 'auto' wants the maxttl from n - q + 1 = 3 other nodes: with 2, it
     * waits while others are pending, and stays out when none are */
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    vote_res(&res[0], 1, 0, -1, 2, now - 100000000u, 0, 1); /* up 100 s, past any grace seen */
    vote_res(&res[1], 1, 30000, 600000, 1, old, 0, 0);
    vote_res(&res[2], 1, 30000, 600000, 1, old, 0, 0);
    res[3].state = res[4].state = RL_PENDING;
    res[3].reply.naux = res[4].reply.naux = 0;
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m & 1, 0);
    CHECK_EQ(wait, 1);
    res[3].state = res[4].state = RL_FAILED;
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m & 1, 0);
    CHECK_EQ(wait, 0);
    CHECK(res[0].novote_ms > 0);
    vote_res(&res[3], 0, 60000, 600000, 1, old, 0, 0); /* a third: its 60 s counts too */
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m & 1, 1);
    CHECK_EQ(rs.maxttl_ms, 60000);

    /* an int grace: that long, whatever the TTLs, no need of other answers */
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = 5000;
    vote_res(&res[0], 1, 0, -1, 2, now - 5500000u, 0, 1);
    for (int i = 1; i < 5; i++) res[i].state = RL_FAILED;
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m & 1, 0); /* 5.5 s, counted 4.5 s */
    CHECK_EQ(res[0].novote_ms, 500);
    m = rl_vote_mask(&rs, res, 5, now + 600000u, 0.01, &wait);
    CHECK_EQ(m & 1, 1);

    /* first sight (no run_id known before): out only when another node's
     * maxttl key is older than this node's uptime (+1 s) */
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    vote_res(&res[0], 1, 0, -1, 1, young, 0, 0);
    for (int i = 1; i < 5; i++) vote_res(&res[i], 1, 30000, 1500, 1, old, 0, 0); /* keys 1.5 s old: brand-new */
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m, 0x1f);
    CHECK_EQ(rs.ok_inc[0], 1);
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    for (int i = 1; i < 5; i++) vote_res(&res[i], 1, 30000, 3500, 1, old, 0, 0); /* keys 3.5 s old */
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m, 0x1e);
    CHECK_EQ(rs.sus_inc[0], 1);
    /* a brand-new cluster: no key anywhere, every node young, all vote */
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    for (int i = 0; i < 5; i++) vote_res(&res[i], 1, 0, -1, 1, young, 0, 0);
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m, 0x1f);
    /* first sight with others pending: not judged yet, the call waits */
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    vote_res(&res[0], 1, 0, -1, 1, young, 0, 0);
    for (int i = 1; i < 5; i++) res[i].state = RL_PENDING;
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m & 1, 0);
    CHECK_EQ(wait, 1);
    CHECK_EQ(res[0].novote_ms, 0); /* (not out: undecided) */
}

/* Two nodes restarted empty within one grace do not clear each other: the
 * longest TTL must come from nodes that vote by themselves. 5 nodes: V used
 * 1 s TTLs (it judged every node before); H holds a 30 s lock on n1-n3 (n4,
 * n5 never saw it); n2 and n3 restart empty and answer V's 1 s; n1 is slow. */
static void test_vote_mask_restarts_together(void)
{
    const uint64_t now = 1000000000000ull;
    const uint64_t old = now - 3600ull * 1000000u, young = now - 3000000u; /* up 1 h, up 3 s */
    rl_restart rs;
    rl_result res[5];
    int wait;
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    rs.maxttl_ms = 1000;
    for (int i = 0; i < 5; i++) rs.ok_inc[i] = 1;
    res[0].state = RL_PENDING; /* n1: slow */
    vote_res(&res[1], 1, 1000, 2000, 2, young, 0, 1);
    vote_res(&res[2], 1, 1000, 2000, 2, young, 0, 1);
    vote_res(&res[3], 1, 1000, 600000, 1, old, 0, 0);
    vote_res(&res[4], 1, 1000, 600000, 1, old, 0, 0);
    uint64_t m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m, 0x18); /* n2, n3 out: 2 voters prove nothing (3 are needed) */
    CHECK_EQ(wait, 1); /* their judgment waits for n1 */
    res[0].state = RL_FAILED;
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m, 0x18);
    CHECK_EQ(wait, 0);
    CHECK_EQ(res[1].novote_ms, 1); /* past its 1 s grace, but unconfirmed: */
    CHECK_EQ(res[1].novote_need, 1); /* one more voter's answer wanted */
    CHECK_EQ(rs.novote_need[2], 1);
    /* n1 answers its 30 s: the grace is 30 s from their start */
    vote_res(&res[0], 0, 30000, 600000, 1, old, 0, 0);
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m, 0x19);
    CHECK_EQ(rs.maxttl_ms, 30000);
    CHECK_EQ(res[1].novote_ms, 30000 + 300 + 2 - 2000);
    CHECK_EQ(res[1].novote_need, 0);
    /* and once up for it, with 3 voters, they vote */
    m = rl_vote_mask(&rs, res, 5, now + 40000000u, 0.01, &wait);
    CHECK_EQ(m, 0x1f);
}

/* What one node may claim of its maxttl key (README "A hostile or damaged
 * node"): more than the longest TTL, or (without AOF) an age beyond its own
 * uptime, is not believed; a larger TTL than enough others prove is not
 * learnt; and one old key among 4 credible answers does not make a node
 * "restarted" on first sight (2 witnesses are needed of 5 nodes). */
static void test_vote_mask_one_node_word(void)
{
    const uint64_t now = 1000000000000ull;
    const uint64_t old = now - 3600ull * 1000000u; /* up 1 h */
    rl_restart rs;
    rl_result res[5];
    int wait;
    /* SET "\0redlock:maxttl" "2000000000:1" on node 0 (AOF off): age 56 years > its 1 h */
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    vote_res(&res[0], 1, 2000000000, 1765000000000LL, 1, old, 0, 0);
    for (int i = 1; i < 3; i++) vote_res(&res[i], 1, 30000, 600000, 1, old, 0, 0);
    CHECK(!rl_maxttl_credible(&res[0], now));
    CHECK(rl_maxttl_credible(&res[1], now));
    uint64_t m = rl_vote_mask(&rs, res, 3, now, 0.01, &wait);
    CHECK_EQ(m, 7);
    CHECK_EQ(rs.maxttl_ms, 30000);
    /* beyond 2^31 - 1, or a negative age: not believed */
    vote_res(&res[0], 1, 9000000000000000000LL, 5, 1, old, 1, 0);
    CHECK(!rl_maxttl_credible(&res[0], now));
    vote_res(&res[0], 1, 30000, -7, 1, old, 1, 0);
    CHECK(!rl_maxttl_credible(&res[0], now));
    /* with AOF the ancient key is credible, but of 5 nodes one witness is
     * not enough, and its 2e9 ms are not learnt (3rd largest of 5) */
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    vote_res(&res[0], 1, 2000000000, 1765000000000LL, 1, old, 1, 0);
    for (int i = 1; i < 5; i++) vote_res(&res[i], 1, 30000, 600000, 1, old, 0, 0);
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK_EQ(m, 0x1f);
    CHECK_EQ(rs.maxttl_ms, 30000);
    /* two old keys of five are evidence: the young node is suspect */
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    vote_res(&res[1], 1, 30000, 600000, 1, now - 5000000u, 0, 0); /* up 5 s, key 600 s: a witness... */
    vote_res(&res[4], 1, 30000, 600000, 1, old, 0, 0);
    vote_res(&res[2], 1, 30000, 3000, 1, now - 4000000u, 0, 0); /* up 4 s */
    m = rl_vote_mask(&rs, res, 5, now, 0.01, &wait);
    CHECK(!rl_maxttl_credible(&res[1], now)); /* ... not believed: older than its own uptime */
    CHECK_EQ(m & 4, 0); /* node 2: witnesses 0 (AOF) and 3, 4: of 3 credible others, need 1 */
}

/* the clock-step check: the server's wall clock against our monotonic
 * clock, sample by sample; a forward step beyond 1% of the time between the
 * samples + the old sample's round trip + 10 ms marks the node; a step back,
 * or drift within that, does not */
static void test_clock_step(void)
{
    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    conf.socket = (char *)"/nonexistent";
    rl_conn *c = rl_conn_new(&conf);
    REQUIRE(c);
    uint64_t t = 5000000000ull;
    int64_t wall = 1700000000000000LL;
    rlc_clock_sample(c, wall, t - 1000, t); /* first sample: nothing to compare */
    CHECK_EQ(c->ident.step_at_us, 0);
    CHECK(!rlc_time_due(c, t + 999999));
    CHECK(rlc_time_due(c, t + 1000000));
    /* 10 s later, 90 ms ahead (1% of 10 s + 1 ms rtt + 10 ms = 111 ms allowed) */
    rlc_clock_sample(c, wall + 10000000 + 90000, t + 10000000 - 500, t + 10000000);
    CHECK_EQ(c->ident.step_at_us, 0);
    /* a step back: harmless */
    rlc_clock_sample(c, wall + 11000000 - 5000000, t + 11000000 - 500, t + 11000000);
    CHECK_EQ(c->ident.step_at_us, 0);
    /* +60 s in 1 s */
    rlc_clock_sample(c, wall + 12000000 + 55000000, t + 12000000 - 500, t + 12000000);
    CHECK_EQ(c->ident.step_at_us, t + 12000000);
    CHECK_EQ(c->ident.step_ms, 60000);
    rl_conn_free(c);

    /* the vote: out for the grace from the step, whatever its AOF or judgment */
    rl_restart rs;
    rl_result res[3];
    int wait;
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    for (int i = 0; i < 3; i++) vote_res(&res[i], 1, 20000, 600000, 1, t - 3600000000ull, i == 0, 0);
    res[0].id.step_at_us = t;
    res[0].id.step_ms = 60000;
    uint64_t m = rl_vote_mask(&rs, res, 3, t + 5000000, 0.01, &wait);
    CHECK_EQ(m, 6);
    CHECK_EQ(res[0].novote_clock, 1);
    CHECK_EQ(res[0].novote_ms, 20000 + 200 + 2 - 5000);
    m = rl_vote_mask(&rs, res, 3, t + 20203000, 0.01, &wait);
    CHECK_EQ(m, 7);
}

/* the acquisition with the restart check over the fake transport (whose
 * answers carry no identity: every node votes, as one without INFO): the SET
 * is the acquire script with the maxttl key as ARGV[5] */
static void test_acquire_restart_check_command(void)
{
    rl_lock_info info;
    rl_call call;
    rl_restart rs;
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = 60000;
    rs.maxttl_key = "m";
    rs.maxttl_keylen = 1;
    fake_init(&F, 3);
    F.ctx.rs = &rs;
    for (int i = 0; i < 3; i++) F.set[i].kind = FO_OK;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 10000, &opts0, &info, &call), RL_ACQUIRED);
    CHECK_EQ(call.ok, 2); /* decided at the quorum */
    CHECK_EQ(F.calls[0].kind, 'A');
    CHECK_EQ(F.calls[0].argc, 9);
    CHECK_STR(F.calls[0].argv[5], "10000");
    CHECK_STR(F.calls[0].argv[8], "m");
}

/* ---- semaphores over the fake transport: what a node's permit answer may
 * be (HACKING.md "Semaphores"): the permit script is a '?' command, answered
 * from F.other / F.other_str ---- */

/* the bitmap answer naming slots (k of them) for a limit, into buf; its length */
static size_t permit_bm(char *buf, int limit, const int *slots, int k)
{
    size_t nb = (size_t)(limit + 7) / 8;
    memset(buf, 0, nb);
    for (int j = 0; j < k; j++) buf[slots[j] / 8] = (char)(buf[slots[j] / 8] | 1 << (slots[j] % 8));
    return nb;
}

static void permit_str(int i, const char *s, size_t len)
{
    F.other[i] = (fake_out){FO_STR, 0, 0};
    F.other_str[i] = s;
    F.other_len[i] = len;
}

/* one rl_acquire_permit of "s" over F, and what it gave */
typedef struct permit_try {
    rl_lock_info info;
    rl_call call;
    char *slots;
    size_t sl;
    int other;
} permit_try;

static int permit_acquire(permit_try *p, int limit, int weight)
{
    memset(p, 0, sizeof(*p)); /* (p->slots freed by the caller) */
    return rl_acquire_permit(&F.ctx, "s", 1, limit, weight, 10000, &opts0, &p->info, &p->slots, &p->sl, &p->other,
                             &p->call);
}

/* was node i sent the trim after the first try (both are '?' in its log) */
static int trimmed_at(int node) { return F.node_log[node][0] == '?' && F.node_log[node][1] == '?'; }

/* A hostile node's answer overflowed the slot parser (digits into a
 * signed long with no bound, a range below zero written below the bitmap:
 * SIGSEGV or a silently corrupted stack). Every such answer is a failed node,
 * and trimmed (it may hold a slot of ours); restore's find the same. */
static void test_permit_hostile_answers(void)
{
    static const char *bad[] = {"9223372036854775808",
                                "18446744073709551552-18446744073709551615",
                                "18446744073709551615",
                                "99999999999999999999999999999999-3",
                                "0-9223372036854775807",
                                "-1",
                                "-64--1",
                                "3-1",
                                "1,,2",
                                "L99999999999999999999",
                                "L-5",
                                "",
                                "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
                                "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"};
    char good[128], lng[300];
    int one = 5;
    size_t gl = permit_bm(good, 64, &one, 1);
    memset(lng, '7', sizeof(lng));
    for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]) + 1; b++) {
        const char *h = b < sizeof(bad) / sizeof(bad[0]) ? bad[b] : lng;
        size_t hl = b < sizeof(bad) / sizeof(bad[0]) ? strlen(h) : sizeof(lng);
        for (int nbad = 2; nbad <= 3; nbad++) {
            fake_init(&F, 5);
            for (int i = 0; i < 5; i++) permit_str(i, good, gl);
            for (int i = 5 - nbad; i < 5; i++) permit_str(i, h, hl);
            F.order[0] = 3, F.order[1] = 4, F.order[2] = 2, F.order[3] = 1, F.order[4] = 0; /* the bad ones first */
            permit_try pt = {0};
            int r = permit_acquire(&pt, 64, 1);
            if (nbad == 2) {
                CHECK_OUT(r, RL_ACQUIRED);
                CHECK(pt.slots && pt.sl == 1 + 2 + 4 && memcmp(pt.slots + 3, "s\0p5", 4) == 0);
            } else {
                CHECK_OUT(r, RL_NO_QUORUM); /* three failed nodes of five */
                CHECK(!pt.slots);
            }
            CHECK_EQ(pt.other, 0);
            for (int i = 5 - nbad; i < 5; i++) {
                CHECK_EQ(pt.call.res[i].state, RL_FAILED);
                CHECK_EQ(pt.call.res[i].err, RL_E_PROTO);
                CHECK(trimmed_at(i)); /* never skipped: it may hold a slot of ours */
            }
            free(pt.slots);
            /* restore's find: a failed node too (two good ones are no quorum) */
            fake_init(&F, 5);
            for (int i = 0; i < 5; i++) permit_str(i, good, gl);
            for (int i = 5 - nbad; i < 5; i++) permit_str(i, h, hl);
            int found = -1;
            r = rl_find_permit(&F.ctx, "s", 1, 64, "tok0123456789abcdef", 19, &pt.slots, &pt.sl, &found, &pt.call);
            CHECK_OUT(r, nbad == 2 ? RL_ACQUIRED : RL_NO_QUORUM);
            CHECK_EQ(found, nbad == 2 ? 1 : 0);
            free(pt.slots);
        }
    }
}

/* the answers a node may give besides its slots: a bitmap of another
 * length, a slot past the limit, more slots than the weight, a foreign
 * limit answered by a minority (it vetoes nothing) or by enough nodes to
 * decide (RL_LIMIT naming it) */
static void test_permit_answers(void)
{
    char good[128], bits2[128], past[8], wide[128];
    int one = 5, two[2] = {5, 6};
    size_t gl = permit_bm(good, 12, &one, 1);
    permit_bm(bits2, 12, two, 2);
    permit_bm(past, 12, &one, 1);
    past[1] = (char)0x10; /* slot 12 of limit 12 */
    size_t wl = permit_bm(wide, 20, &one, 1);
    struct {
        const char *s;
        size_t len;
    } bad[] = {{bits2, gl}, {past, gl}, {wide, wl}, {good, gl - 1}};
    for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
        fake_init(&F, 3);
        for (int i = 0; i < 3; i++) permit_str(i, good, gl);
        permit_str(1, bad[b].s, bad[b].len);
        permit_try pt = {0};
        CHECK_OUT(permit_acquire(&pt, 12, 1), RL_ACQUIRED);
        CHECK_EQ(pt.call.res[1].err, RL_E_PROTO);
        CHECK(trimmed_at(1));
        free(pt.slots);
    }
    /* another limit on one node of five (a forged or stale r "\0pL"): no veto */
    fake_init(&F, 5);
    for (int i = 0; i < 5; i++) permit_str(i, good, gl);
    F.other[0] = (fake_out){FO_INT, 1024, 0};
    permit_try pt = {0};
    CHECK_OUT(permit_acquire(&pt, 12, 1), RL_ACQUIRED);
    CHECK_EQ(pt.other, 0);
    free(pt.slots);
    pt.slots = NULL;
    /* two of five: no veto either; the attempt fails on the split alone */
    fake_init(&F, 5);
    for (int i = 0; i < 5; i++) permit_str(i, good, gl);
    F.other[0] = F.other[1] = (fake_out){FO_INT, 1024, 0};
    CHECK_OUT(permit_acquire(&pt, 12, 1), RL_ACQUIRED);
    free(pt.slots);
    pt.slots = NULL;
    /* three of five: enough to decide, RL_LIMIT naming the limit most of them name */
    fake_init(&F, 5);
    for (int i = 0; i < 5; i++) permit_str(i, good, gl);
    F.other[0] = F.other[2] = (fake_out){FO_INT, 7, 0};
    F.other[4] = (fake_out){FO_INT, 1024, 0};
    CHECK_OUT(permit_acquire(&pt, 12, 1), RL_LIMIT);
    CHECK_EQ(pt.other, 7);
    CHECK(!pt.slots);
    /* an integer answer that is no limit (0, negative, past 1024, ours) is a failed node */
    long long nolim[] = {0, -3, 1025, 12, 9223372036854775807LL};
    for (size_t k = 0; k < sizeof(nolim) / sizeof(nolim[0]); k++) {
        fake_init(&F, 5);
        for (int i = 0; i < 5; i++) permit_str(i, good, gl);
        for (int i = 0; i < 3; i++) F.other[i] = (fake_out){FO_INT, nolim[k], 0};
        pt.other = 0;
        CHECK_OUT(permit_acquire(&pt, 12, 1), RL_NO_QUORUM);
        CHECK_EQ(pt.other, 0);
    }
}

/* A permit of weight w is w slots that one quorum of nodes holds together
 * (so isHeld, extend and release, which count a node only when it holds
 * every key of the list, agree with the grant). Nodes 0, 1 set {0, 1},
 * nodes 2, 3 {0, 2}, node 4 {1, 2}: slots 0 and 1 each have a quorum, but
 * no three nodes hold both; refused, and trimmed everywhere. With nodes
 * 0, 1, 2 on {0, 1}: granted, kept there, the others trimmed. */
static void test_permit_same_nodes(void)
{
    char a[8], b[8], c[8];
    int sa[2] = {0, 1}, sb[2] = {0, 2}, sc[2] = {1, 2};
    size_t l = permit_bm(a, 3, sa, 2);
    permit_bm(b, 3, sb, 2);
    permit_bm(c, 3, sc, 2);
    const char *split[5] = {a, a, b, b, c}, *held[5] = {a, a, a, b, c};
    /* the key list of slots 0 and 1 */
    const char both[] = "\0\0\4s\0p0\0\4s\0p1";
    fake_init(&F, 5);
    for (int i = 0; i < 5; i++) permit_str(i, split[i], l);
    permit_try pt = {0};
    CHECK_OUT(permit_acquire(&pt, 3, 2), RL_CONFLICT);
    CHECK(!pt.slots);
    for (int i = 0; i < 5; i++) CHECK(trimmed_at(i));
    fake_init(&F, 5);
    for (int i = 0; i < 5; i++) permit_str(i, held[i], l);
    F.order[0] = 3, F.order[1] = 4, F.order[2] = 0, F.order[3] = 1, F.order[4] = 2;
    CHECK_OUT(permit_acquire(&pt, 3, 2), RL_ACQUIRED);
    CHECK(pt.slots && pt.sl == sizeof(both) - 1 && memcmp(pt.slots, both, pt.sl) == 0);
    CHECK_EQ(pt.call.ok, 3);
    for (int i = 0; i < 5; i++) CHECK_EQ(trimmed_at(i), i >= 3);
    free(pt.slots);
    /* restore finds the slots a quorum holds together only: none with the
     * split answers (slot 0 alone is held by nodes 0-3, but as a part of no
     * node's set); {0, 1} where nodes 0, 1, 2 hold it, also when node 2
     * holds slot 2 too (a leftover) */
    const char with2[1] = {7};
    for (int k = 0; k < 2; k++) {
        fake_init(&F, 5);
        for (int i = 0; i < 5; i++) permit_str(i, k ? held[i] : split[i], l);
        if (k) permit_str(2, with2, 1);
        int found = -1;
        pt.slots = NULL;
        CHECK_OUT(rl_find_permit(&F.ctx, "s", 1, 3, "tok0123456789abcdef", 19, &pt.slots, &pt.sl, &found, &pt.call),
                  k ? RL_ACQUIRED : RL_LOST);
        CHECK_EQ(found, 2 * k);
        CHECK(k ? pt.slots && pt.sl == sizeof(both) - 1 && memcmp(pt.slots, both, pt.sl) == 0 : !pt.slots);
        free(pt.slots);
    }
}

/* The start drawn is held on a node that the others need: limit 2, nodes 0
 * and 1 down, node 2 has slot 0 held (it sets slot 1 whatever the start),
 * nodes 3 and 4 set the start. From start 0 the vote splits; the same
 * attempt tries slot 1 (it can still win: held on no node), and wins. */
static char start_bm[2][1];
static void permit_start_hook(fake *f, const rl_cmd *cmd, int callno)
{
    (void)callno;
    if (cmd->argc < 2 || cmd->argvlen[1] != 40 || memcmp(cmd->argv[1], rl_script_permit_sha, 40) != 0) return;
    char st[8] = {0};
    memcpy(st, cmd->argv[8], cmd->argvlen[8] < 7 ? cmd->argvlen[8] : 7);
    int s = atoi(st);
    f->other_str[3] = f->other_str[4] = start_bm[s];
    f->other_len[3] = f->other_len[4] = 1;
}

static void test_permit_tries_slots_that_can_win(void)
{
    start_bm[0][0] = 1;
    start_bm[1][0] = 2;
    for (int first = 0; first < 2; first++) {
        fake_init(&F, 5);
        F.other[0] = F.other[1] = (fake_out){FO_FAIL, 0, RL_E_TIMEOUT};
        permit_str(2, start_bm[1], 1);
        permit_str(3, start_bm[0], 1);
        permit_str(4, start_bm[0], 1);
        F.hook = permit_start_hook;
        F.rnd.len = 8; /* random_below(2): the start drawn */
        memset(F.rnd.bytes, first, 8);
        permit_try pt = {0};
        CHECK_OUT(permit_acquire(&pt, 2, 1), RL_ACQUIRED);
        CHECK(pt.slots && memcmp(pt.slots + 3, "s\0p1", 4) == 0);
        CHECK_EQ(pt.info.attempts, 1);
        free(pt.slots);
    }
}

static const test_case tests[] = {{"quorum_math", test_quorum_math},
                                  {"owe_state", test_owe_state},
                                  {"info_parse", test_info_parse},
                                  {"vote_mask", test_vote_mask},
                                  {"clock_step", test_clock_step},
                                  {"vote_mask_restarts_together", test_vote_mask_restarts_together},
                                  {"vote_mask_one_node_word", test_vote_mask_one_node_word},
                                  {"acquire_restart_check_command", test_acquire_restart_check_command},
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
                                  {"tokens", test_tokens},
                                  {"uri_accepted", test_uri_accepted},
                                  {"uri_rejected", test_uri_rejected},
                                  {"quorum_message", test_quorum_message},
                                  {"conf_fields", test_conf_fields},
                                  {"secret_copy_no_simd", test_secret_copy_no_simd},
                                  {"uri_error_never_has_password", test_uri_error_never_has_password},
                                  {"node_conf_name", test_node_conf_name},
                                  {"resp_format", test_resp_format},
                                  {"reply_fast_path", test_reply_fast_path},
                                  {"latency_histogram", test_latency_histogram},
                                  {"validity_and_remaining", test_validity_and_remaining},
                                  {"err_names", test_err_names},
                                  {"clock_boottime", test_clock_boottime},
                                  {"scripts_sha", test_scripts_sha},
                                  {"fork_generation", test_fork_generation},
                                  {"permit_hostile_answers", test_permit_hostile_answers},
                                  {"permit_answers", test_permit_answers},
                                  {"permit_same_nodes", test_permit_same_nodes},
                                  {"permit_tries_slots_that_can_win", test_permit_tries_slots_that_can_win},
                                  NET_TESTS};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    net_setup_signals();
    test_counts c = run_tests(tests, N_TESTS(tests), argc, argv, NULL, NULL);
    nodes_stop_all();
    return tests_summary(c);
}
