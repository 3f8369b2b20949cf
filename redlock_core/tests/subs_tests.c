/* subs_tests.c -- wake on release (rl_wait.c): subscriber connections
 * against real redis-server processes (tests/nodes_fixture.h), the quorum of
 * subscriptions a wait needs, the release messages counted in order. A suite
 * of build/unit_tests. */
#define _GNU_SOURCE
#include "rl_conn_struct.h"
#include "rl_conn_test.h"
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/nodes_fixture.h"
#include "tests/unit_tests.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/* Subscribers to nodes 0..2 waiting on key: every node's confirmation read
 * (0), or -1 */
static int subs_waiting(rl_conn **subs, rl_subs *s, rl_waiter *w, const char *key)
{
    if (subs_open(subs, 3, 500) != 0) return -1;
    rl_subs_init(s, subs, 3, &rl_clock_monotonic, w);
    if (w->subscribe(w->ctx, key, strlen(key), 0, NULL) != 0) return -1;
    w->ready(w->ctx, mono_us() + 2000000);
    rl_net_listen(&s->net, mono_us() + 2000000, subs_idle, s); /* every node's confirmation */
    return subs_idle(s) ? 0 : -1;
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
    REQUIRE(subs_waiting(subs, &s, &w, "wakeorder:k") == 0);
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
    REQUIRE(subs_waiting(subs, &s, &w, "wakelate:k") == 0);
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

static const test_case tests[] = {
    {"net_subscribe_not_queued", test_net_subscribe_not_queued},
    {"net_wake_late_quorum", test_net_wake_late_quorum},
    {"net_wake_acquired_then_released", test_net_wake_acquired_then_released},
};

const test_suite subs_suite = {tests, N_TESTS(tests)};
