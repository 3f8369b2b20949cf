/* extend_tests.c -- C unit tests of the core: the validity rl_extend() leaves on
 * every outcome (fake transport and clock), and which node entries are the
 * same server (rl_node_conf_same_server, rl_node_confs_find_same_server,
 * a user with an empty password in a URI).
 *
 * Usage: extend_tests [substring]   runs the tests whose name contains it.
 * Prints PASS/FAIL per test and ends with "N passed, N failed". */
#define _GNU_SOURCE
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/fake.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- runner ---- */

static fake F;
static const rl_opts opts0 = {
    .retry_count = 0, .retry_delay_ms = 0, .retry_jitter_ms = 0, .wait_ms = 0, .drift_factor = 0.01};

/* a lock acquired with ttl_ms on n fake nodes; step_us per reply */
static void acquired(rl_lock_info *info, int n, int ttl_ms, uint64_t step_us)
{
    fake_init(&F, n);
    F.step_us = step_us;
    int r = rl_acquire(&F.ctx, "k", 1, ttl_ms, &opts0, info, NULL);
    CHECK_EQ(r, RL_ACQUIRED);
}

/* the end of validity a failed extend of ttl_ms begun at t0 may still claim */
static uint64_t capped_end(uint64_t t0, int ttl_ms, double drift)
{
    return t0 + (uint64_t)(ttl_ms - ((int64_t)(ttl_ms * drift) + 2)) * 1000u;
}

/* ======================================================================
 * rl_extend and the validity it leaves
 * ====================================================================== */
static void test_extend_success_sets_new_validity(void)
{
    rl_lock_info info;
    rl_call call;
    acquired(&info, 3, 1000, 1000);
    F.clock.now += 500000;
    uint64_t t0 = F.clock.now;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 60000, 0.01, &info, &call), RL_EXTENDED);
    /* two replies decide (2 ms), validity = 60000 - 2 - (600 + 2) from the decision on */
    CHECK_EQ(info.validity_ms, 60000 - 2 - 602);
    CHECK_EQ(info.valid_until_us, t0 + 2000 + (uint64_t)info.validity_ms * 1000u);
    CHECK_EQ(info.start_us, t0);
    CHECK_EQ(call.ok, 2);
}

/* The reported bug: 2 of 3 nodes paused, the extend to 3 s fails on
 * timeouts, the paused nodes run the PEXPIRE when they wake: the lock must
 * not keep claiming the 60 s of the acquisition. */
static void test_extend_timeouts_cap_validity(void)
{
    rl_lock_info info;
    rl_call call;
    acquired(&info, 3, 60000, 1000);
    uint64_t old_end = info.valid_until_us;
    F.ext[1].kind = FO_FAIL;
    F.ext[1].err = RL_E_TIMEOUT;
    F.ext[2].kind = FO_FAIL;
    F.ext[2].err = RL_E_TIMEOUT;
    F.step_us = 50000;
    uint64_t t0 = F.clock.now;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 3000, 0.01, &info, &call), RL_NO_QUORUM);
    CHECK(old_end > capped_end(t0, 3000, 0.01));
    CHECK_EQ(info.valid_until_us, capped_end(t0, 3000, 0.01));
    CHECK_EQ(info.validity_ms, (int64_t)(capped_end(t0, 3000, 0.01) - F.clock.now) / 1000);
    CHECK(rl_remaining_ms(&info, F.clock.now) <= 3000 - 32);
    CHECK(rl_remaining_ms(&info, F.clock.now) > 0);
    CHECK_EQ(rl_remaining_ms(&info, t0 + 3000000), 0);
}

/* A node not awaited (still pending when the call decided) may run the
 * PEXPIRE later: counted like one that timed out. */
static void test_extend_pending_node_caps_validity(void)
{
    rl_lock_info info;
    acquired(&info, 3, 60000, 1000);
    F.ext[0].kind = FO_FAIL;
    F.ext[0].err = RL_E_REFUSED;
    F.ext[1].kind = FO_FAIL;
    F.ext[1].err = RL_E_IO;
    uint64_t t0 = F.clock.now;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 5000, 0.0, &info, NULL), RL_NO_QUORUM);
    CHECK_EQ(F.calls[F.ncalls - 1].state[2], RL_PENDING);
    CHECK_EQ(info.valid_until_us, capped_end(t0, 5000, 0.0));
}

/* Extending to more than is left, and failing: the old end stays (the
 * nodes that did not run the PEXPIRE keep the old TTL). */
static void test_extend_failure_keeps_smaller_old_end(void)
{
    rl_lock_info info;
    acquired(&info, 3, 1000, 1000);
    uint64_t old_end = info.valid_until_us;
    int64_t old_validity = info.validity_ms;
    fake_set_all(F.ext, 3, FO_FAIL, 0, RL_E_TIMEOUT);
    F.step_us = 10000;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 60000, 0.01, &info, NULL), RL_NO_QUORUM);
    CHECK_EQ(info.valid_until_us, old_end);
    CHECK_EQ(info.validity_ms, old_validity - 20); /* what is left when the call returned (2 replies decided) */
    /* ... and once the old end has passed, 0 */
    F.clock.now = old_end + 1;
    fake_set_all(F.ext, 3, FO_FAIL, 0, RL_E_TIMEOUT);
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 60000, 0.01, &info, NULL), RL_NO_QUORUM);
    CHECK_EQ(info.validity_ms, 0);
    CHECK_EQ(rl_remaining_ms(&info, F.clock.now), 0);
}

static void test_extend_token_gone_on_quorum_zeroes(void)
{
    rl_lock_info info;
    rl_call call;
    acquired(&info, 3, 60000, 1000);
    fake_set_all(F.ext, 3, FO_INT, 0, 0);
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 3000, 0.01, &info, &call), RL_LOST);
    CHECK_EQ(info.valid_until_us, 0);
    CHECK_EQ(info.validity_ms, 0);
    CHECK_EQ(rl_remaining_ms(&info, F.clock.now), 0);

    /* 5 nodes: 3 say gone, 2 not awaited */
    acquired(&info, 5, 60000, 1000);
    fake_set_all(F.ext, 5, FO_INT, 0, 0);
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 3000, 0.01, &info, NULL), RL_LOST);
    CHECK_EQ(F.calls[F.ncalls - 1].state[4], RL_PENDING);
    CHECK_EQ(rl_remaining_ms(&info, F.clock.now), 0);
}

/* 4 nodes, quorum 3: 2 answering "gone" leave at most 2 holders, never a quorum */
static void test_extend_token_gone_even_nodes(void)
{
    rl_lock_info info;
    acquired(&info, 4, 60000, 1000);
    F.ext[0].kind = FO_INT;
    F.ext[0].v = 0;
    F.ext[1].kind = FO_INT;
    F.ext[1].v = 0;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 3000, 0.01, &info, NULL), RL_LOST);
    CHECK_EQ(rl_remaining_ms(&info, F.clock.now), 0);
}

/* Gone on some, timeouts on others: no quorum says gone, so only capped. */
static void test_extend_mixed_failure_caps(void)
{
    rl_lock_info info;
    acquired(&info, 5, 60000, 1000);
    F.ext[0].kind = FO_INT; /* ok */
    F.ext[0].v = 1;
    F.ext[1].kind = FO_INT; /* ok */
    F.ext[1].v = 1;
    F.ext[2].kind = FO_INT; /* gone */
    F.ext[2].v = 0;
    F.ext[3].kind = FO_FAIL;
    F.ext[3].err = RL_E_TIMEOUT;
    F.ext[4].kind = FO_FAIL;
    F.ext[4].err = RL_E_TIMEOUT;
    uint64_t t0 = F.clock.now;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 4000, 0.01, &info, NULL), RL_LOST);
    CHECK_EQ(info.valid_until_us, capped_end(t0, 4000, 0.01));
    CHECK(rl_remaining_ms(&info, F.clock.now) > 0);
}

/* docs/api.md "Restarted nodes": node 0 restarted empty since the lock was taken
 * on nodes 0-2; it answers the extend first with -1 (no key), nodes 3 and 4
 * (never held it) next with -1, nodes 1 and 2 last with 1. The restarted
 * node's -1 is repairable: the call must wait for nodes 1 and 2 (taking the
 * -1 for a "no" decided a failure after 3 answers, then repaired node 0:
 * extend false with the key on 3 of 5 nodes), then repair node 0: extended
 * on 3. */
static void test_extend_waits_past_repairable(void)
{
    rl_lock_info info;
    rl_restart rs;
    memset(&rs, 0, sizeof(rs));
    rs.grace_ms = RL_GRACE_AUTO;
    rs.maxttl_key = "p:maxttl";
    rs.maxttl_keylen = strlen(rs.maxttl_key);
    acquired(&info, 5, 20000, 1000);
    F.ctx.rs = &rs;
    F.clock.now += 500000;
    for (int i = 0; i < 5; i++) F.id[i] = (rl_ident){.up_since_us = 1000, .inc = 1, .known = 1};
    F.id[0] = (rl_ident){.up_since_us = F.clock.now - 100000, .inc = 2, .known = 1, .restarted = 1};
    int order[5] = {0, 3, 4, 1, 2};
    memcpy(F.order, order, sizeof(order));
    fake_set_all(F.ext, 5, FO_INT, -1, 0);
    F.ext[1].v = F.ext[2].v = 1;
    int before = F.ncalls;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 20000, 0.01, &info, NULL), RL_EXTENDED);
    CHECK_EQ(F.ncalls - before, 2); /* the extend, then the repair */
    CHECK_EQ(F.calls[before].state[1], RL_ANSWERED);
    CHECK_EQ(F.calls[before].state[2], RL_ANSWERED);
    CHECK_EQ(F.calls[before + 1].kind, 'S');
    CHECK(info.validity_ms > 19000);

    /* the same with node 2 gone: 1 extended + 1 repaired of 5 is no quorum,
     * decided at node 2's answer (no waiting for what cannot help) */
    F.ext[2].v = 0;
    before = F.ncalls;
    CHECK(rl_extend(&F.ctx, "k", 1, info.token, 20000, 0.01, &info, NULL) != RL_EXTENDED);
    /* a -1 of a node that did not restart is never repaired */
    F.id[0].restarted = 0;
    fake_set_all(F.ext, 5, FO_INT, 1, 0);
    F.ext[0].v = -1;
    before = F.ncalls;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 20000, 0.01, &info, NULL), RL_EXTENDED);
    CHECK_EQ(F.ncalls - before, 1);
}

/* A quorum confirmed, but the round trip used up the new TTL: 0, not the old. */
static void test_extend_new_validity_nonpositive_zeroes(void)
{
    rl_lock_info info;
    acquired(&info, 3, 60000, 1000);
    F.step_us = 60000; /* 2 replies: 120 ms > 100 - 3 */
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 100, 0.01, &info, NULL), RL_LOST);
    CHECK_EQ(info.valid_until_us, 0);
    CHECK_EQ(rl_remaining_ms(&info, F.clock.now), 0);

    /* ttl 1: the 2 ms of drift alone exceed it */
    acquired(&info, 3, 60000, 0);
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 1, 0.0, &info, NULL), RL_LOST);
    CHECK_EQ(rl_remaining_ms(&info, F.clock.now), 0);

    /* ttl 1 and no quorum: the cap is t0 + (1 - 2) ms, i.e. nothing */
    acquired(&info, 3, 60000, 0);
    fake_set_all(F.ext, 3, FO_FAIL, 0, RL_E_TIMEOUT);
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 1, 0.0, &info, NULL), RL_NO_QUORUM);
    CHECK_EQ(rl_remaining_ms(&info, F.clock.now), 0);
}

static void test_extend_fanout_error_caps(void)
{
    rl_lock_info info;
    acquired(&info, 3, 60000, 1000);
    F.fail_fanout = 1;
    uint64_t t0 = F.clock.now;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 2000, 0.01, &info, NULL), RL_ERROR);
    CHECK_EQ(info.valid_until_us, capped_end(t0, 2000, 0.01));
    /* bad arguments: nothing was sent, nothing changes */
    uint64_t end = info.valid_until_us;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 0, 0.01, &info, NULL), RL_ERROR);
    CHECK_EQ(info.valid_until_us, end);
}

static void test_extend_same_server_zeroes(void)
{
    rl_lock_info info;
    rl_call call;
    acquired(&info, 3, 60000, 1000);
    F.order[0] = 2;
    F.order[2] = 0;
    F.ext[2].kind = FO_FAIL;
    F.ext[2].err = RL_E_SAME_SERVER;
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 60000, 0.01, &info, &call), RL_SAME_SERVER);
    CHECK_EQ(call.res[2].err, RL_E_SAME_SERVER);
    CHECK_EQ(rl_remaining_ms(&info, F.clock.now), 0);
}

/* A lock whose validity is unknown (restored: valid_until 0) stays at 0
 * after a failed extend and gets the new validity from a successful one. */
static void test_extend_unknown_validity(void)
{
    rl_lock_info info;
    acquired(&info, 3, 60000, 1000);
    info.valid_until_us = 0;
    info.validity_ms = 0;
    fake_set_all(F.ext, 3, FO_FAIL, 0, RL_E_TIMEOUT);
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 5000, 0.01, &info, NULL), RL_NO_QUORUM);
    CHECK_EQ(rl_remaining_ms(&info, F.clock.now), 0);
    fake_set_all(F.ext, 3, FO_INT, 1, 0);
    CHECK_EQ(rl_extend(&F.ctx, "k", 1, info.token, 5000, 0.01, &info, NULL), RL_EXTENDED);
    CHECK(rl_remaining_ms(&info, F.clock.now) > 4000);
}

/* ======================================================================
 * same server
 * ====================================================================== */
static rl_node_conf conf_of(const char *uri)
{
    rl_node_conf c;
    char err[160];
    memset(&c, 0, sizeof(c));
    if (rl_uri_parse(uri, strlen(uri), &c, err, sizeof(err)) != 0) {
        check_failf(__FILE__, __LINE__, "%s rejected: %s", uri, err);
        memset(&c, 0, sizeof(c));
    }
    return c;
}

static int same(const char *a, const char *b)
{
    rl_node_conf ca = conf_of(a), cb = conf_of(b);
    int r = -1;
    if ((ca.host || ca.socket) && (cb.host || cb.socket)) r = rl_node_conf_same_server(&ca, &cb);
    rl_node_conf_free(&ca);
    rl_node_conf_free(&cb);
    return r;
}

#define CHECK_SAME(a, b, want)                                                                               \
    do {                                                                                                     \
        int got_ = same(a, b);                                                                               \
        if (got_ != (want)) check_failf(__FILE__, __LINE__, "same(%s, %s) = %d, want %d", a, b, got_, want); \
    } while (0)

static void test_same_server_tcp(void)
{
    CHECK_SAME("127.0.0.1:7001", "127.0.0.1:7001", 1);
    CHECK_SAME("127.0.0.1:7001", "127.0.0.1:7002", 0);
    CHECK_SAME("localhost:7001", "127.0.0.1:7001", 1); /* a name and its address */
    CHECK_SAME("redis://localhost/3", "127.0.0.1", 1); /* default port, another db */
    CHECK_SAME("LOCALHOST:7001", "localhost:7001", 1);
    CHECK_SAME("localhost:7001", "127.0.0.1:7002", 0);
    CHECK_SAME("127.1:7001", "127.0.0.1:7001", 1); /* inet_aton spelling */
    CHECK_SAME("[::1]:7001", "[0:0:0:0:0:0:0:1]:7001", 1);
    CHECK_SAME("[::1]:7001", "[::1]:7002", 0);
    CHECK_SAME("[::ffff:127.0.0.1]:7001", "127.0.0.1:7001", 1); /* v4-mapped */
    CHECK_SAME("[::1]:7001", "127.0.0.1:7001", 0);
    CHECK_SAME("10.0.0.1:7001", "10.0.0.2:7001", 0);
    /* names that do not resolve compare as strings */
    CHECK_SAME("no-such-host.invalid:7001", "127.0.0.1:7001", 0);
    CHECK_SAME("No-Such-Host.invalid:7001", "no-such-host.invalid:7001", 1);
    CHECK_SAME("a.invalid:7001", "b.invalid:7001", 0);
}

static void test_same_server_unix(void)
{
    char dir[] = "/tmp/rl-same-XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    char f1[128], f2[128], dotted[160], link[160], u1[200], u2[200], ud[200], ul[200], ux[200];
    snprintf(f1, sizeof(f1), "%s/a.sock", dir);
    snprintf(f2, sizeof(f2), "%s/b.sock", dir);
    snprintf(dotted, sizeof(dotted), "%s/./a.sock", dir);
    snprintf(link, sizeof(link), "%s/l.sock", dir);
    FILE *fp = fopen(f1, "w");
    REQUIRE(fp);
    fclose(fp);
    fp = fopen(f2, "w");
    REQUIRE(fp);
    fclose(fp);
    REQUIRE(symlink(f1, link) == 0);
    snprintf(u1, sizeof(u1), "unix://%s", f1);
    snprintf(u2, sizeof(u2), "unix://%s", f2);
    snprintf(ud, sizeof(ud), "unix://%s", dotted);
    snprintf(ul, sizeof(ul), "unix://%s", link);
    snprintf(ux, sizeof(ux), "unix://%s/missing.sock", dir);
    CHECK_SAME(u1, u1, 1);
    CHECK_SAME(u1, u2, 0);
    CHECK_SAME(u1, ud, 1); /* another path to the same file */
    CHECK_SAME(ul, u1, 1); /* a symlink to it */
    CHECK_SAME(ul, u2, 0);
    CHECK_SAME(ux, ux, 1); /* missing: by string */
    CHECK_SAME(ux, u1, 0);
    CHECK_SAME(u1, "127.0.0.1:6379", 0); /* TCP vs unix: only at connect */
    unlink(link);
    unlink(f1);
    unlink(f2);
    rmdir(dir);
}

static void test_same_server_find(void)
{
    const char *uris[] = {"127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003", "localhost:7002"};
    rl_node_conf c[4];
    int a = -1, b = -1;
    for (int i = 0; i < 4; i++) c[i] = conf_of(uris[i]);
    CHECK_EQ(rl_node_confs_find_same_server(c, 3, &a, &b), 0);
    CHECK_EQ(rl_node_confs_find_same_server(c, 4, &a, &b), 1);
    CHECK_EQ(a, 1);
    CHECK_EQ(b, 3);
    CHECK_EQ(rl_node_confs_find_same_server(c, 1, &a, &b), 0);
    CHECK_EQ(rl_node_confs_find_same_server(c, 0, &a, &b), 0);
    for (int i = 0; i < 4; i++) rl_node_conf_free(&c[i]);
}

static void test_uri_user_empty_password(void)
{
    const char *bad[] = {"redis://user:@h", "redis://user:@h:7001/2", "rediss://u:@[::1]:1"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        rl_node_conf c;
        char err[160] = "";
        memset(&c, 0, sizeof(c));
        if (rl_uri_parse(bad[k], strlen(bad[k]), &c, err, sizeof(err)) == 0) {
            check_failf(__FILE__, __LINE__, "%s accepted (user %s dropped)", bad[k], c.user ? c.user : "(null)");
            rl_node_conf_free(&c);
        } else {
            CHECK(strstr(err, "user") != NULL);
            CHECK(c.host == NULL && c.user == NULL);
        }
    }
    /* no user, empty password: no AUTH at all, as before */
    rl_node_conf c = conf_of("redis://:@h");
    CHECK(c.user == NULL && c.password == NULL);
    rl_node_conf_free(&c);
}

static const test_case tests[] = {
    {"extend_success_sets_new_validity", test_extend_success_sets_new_validity},
    {"extend_timeouts_cap_validity", test_extend_timeouts_cap_validity},
    {"extend_pending_node_caps_validity", test_extend_pending_node_caps_validity},
    {"extend_failure_keeps_smaller_old_end", test_extend_failure_keeps_smaller_old_end},
    {"extend_token_gone_on_quorum_zeroes", test_extend_token_gone_on_quorum_zeroes},
    {"extend_token_gone_even_nodes", test_extend_token_gone_even_nodes},
    {"extend_mixed_failure_caps", test_extend_mixed_failure_caps},
    {"extend_waits_past_repairable", test_extend_waits_past_repairable},
    {"extend_new_validity_nonpositive_zeroes", test_extend_new_validity_nonpositive_zeroes},
    {"extend_fanout_error_caps", test_extend_fanout_error_caps},
    {"extend_same_server_zeroes", test_extend_same_server_zeroes},
    {"extend_unknown_validity", test_extend_unknown_validity},
    {"same_server_tcp", test_same_server_tcp},
    {"same_server_unix", test_same_server_unix},
    {"same_server_find", test_same_server_find},
    {"uri_user_empty_password", test_uri_user_empty_password},
};

int main(int argc, char **argv)
{
    test_counts c = run_tests(tests, N_TESTS(tests), argc, argv, NULL, NULL);
    return tests_summary(c);
}
