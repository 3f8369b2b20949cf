/* restart_tests.c -- the restart-safe quorum (docs/api.md "Restarted nodes"): a
 * node's identity from INFO and its clock samples (net/rl_read.c), the vote
 * (rl_vote_mask, lock/rl_restart.c), and the acquisition with the restart check over
 * the fake transport. A suite of build/unit_tests. */
#define _GNU_SOURCE
#include "rl_conn_struct.h"
#include "rl_conn_test.h"
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/fake.h"
#include "tests/unit_tests.h"

#include <stdint.h>
#include <string.h>

static fake F; /* large: static, reset by fake_init in each test */

static const rl_opts opts0 = {
    .retry_count = 0, .retry_delay_ms = 0, .retry_jitter_ms = 0, .wait_ms = 0, .drift_factor = 0.01};

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

static const test_case tests[] = {
    {"info_parse", test_info_parse},
    {"vote_mask", test_vote_mask},
    {"clock_step", test_clock_step},
    {"vote_mask_restarts_together", test_vote_mask_restarts_together},
    {"vote_mask_one_node_word", test_vote_mask_one_node_word},
    {"acquire_restart_check_command", test_acquire_restart_check_command},
};

const test_suite restart_suite = {tests, N_TESTS(tests)};
