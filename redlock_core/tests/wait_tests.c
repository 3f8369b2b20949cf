/* wait_tests.c -- C unit tests of waiting with wake_on_release: rl_acquire over the fake
 * transport and clock with a fake waiter (scripted release / "acquired" messages), and the
 * pub/sub reply parsing of a subscriber connection (no socket).
 *
 * Usage: wait_tests [substring]   runs the tests whose name contains it.
 * Prints PASS/FAIL per test and ends with "N passed, N failed". */
#define _GNU_SOURCE
#include "rl_conn_struct.h"
#include "rl_conn_test.h"
#include "tests/check.h"
#include "tests/fake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a fake waiter: events become visible at given times of the fake clock ---- */
#define FW_MAX 64
typedef struct fake_waiter {
    fake *f;
    struct {
        uint64_t at;
        int kind, waiters, cleanup;
    } ev[FW_MAX];
    int nev, next;
    int subscribes, readies, waits, latests, unsubscribes;
    int subscribed; /* between subscribe and unsubscribe */
    int fail_subscribe;
    int fair;               /* subscribed with a fair id */
    int calls_at_subscribe; /* fan-outs done before subscribe() */
    int shard;
    char key[64];
} fake_waiter;

static fake F;
static fake_waiter FW;
static rl_waiter W;

static void fw_add(uint64_t at, int kind, int waiters)
{
    FW.ev[FW.nev].at = at;
    FW.ev[FW.nev].kind = kind;
    FW.ev[FW.nev].waiters = waiters;
    FW.ev[FW.nev].cleanup = 0;
    FW.nev++;
}

static int fw_subscribe(void *ctx, const char *key, size_t keylen, int shard, const char *fid)
{
    fake_waiter *w = ctx;
    w->subscribes++;
    w->shard = shard;
    w->fair = fid != NULL;
    w->calls_at_subscribe = w->f->ncalls;
    snprintf(w->key, sizeof(w->key), "%.*s", (int)keylen, key);
    if (w->fail_subscribe) return -1;
    w->subscribed = 1;
    return 0;
}

static void fw_ready(void *ctx, uint64_t until_us)
{
    fake_waiter *w = ctx;
    w->readies++;
    if (w->f->clock.now + 100 < until_us) w->f->clock.now += 100; /* the confirmations' round trip */
}

static int fw_wait(void *ctx, uint64_t until_us, rl_wake *ev)
{
    fake_waiter *w = ctx;
    w->waits++;
    CHECK(w->subscribed);
    if (w->next < w->nev && w->ev[w->next].at <= until_us) {
        if (w->ev[w->next].at > w->f->clock.now) w->f->clock.now = w->ev[w->next].at;
        ev->kind = w->ev[w->next].kind;
        ev->waiters = w->ev[w->next].waiters;
        ev->cleanup = w->ev[w->next].cleanup;
        w->next++;
        return ev->kind;
    }
    if (until_us > w->f->clock.now) w->f->clock.now = until_us;
    ev->kind = RL_WAKE_TIMER;
    return RL_WAKE_TIMER;
}

static int fw_latest(void *ctx, rl_wake *ev)
{
    fake_waiter *w = ctx;
    w->latests++;
    ev->kind = RL_WAKE_TIMER;
    while (w->next < w->nev && w->ev[w->next].at <= w->f->clock.now) {
        ev->kind = w->ev[w->next].kind;
        ev->waiters = w->ev[w->next].waiters;
        ev->cleanup = w->ev[w->next].cleanup;
        w->next++;
    }
    return ev->kind;
}

static void fw_unsubscribe(void *ctx)
{
    fake_waiter *w = ctx;
    w->unsubscribes++;
    w->subscribed = 0;
}

/* n fake nodes and the fake waiter in the ctx */
static void setup(int n)
{
    fake_init(&F, n);
    F.step_us = 100;
    memset(&FW, 0, sizeof(FW));
    FW.f = &F;
    W = (rl_waiter){fw_subscribe, fw_ready, fw_wait, fw_latest, fw_unsubscribe, &FW};
    F.ctx.waiter = &W;
}

/* SET answered nil (held by someone else) for the first `held` SET fan-outs, OK after */
static int g_held;
static void hook_held(fake *f, const rl_cmd *cmd, int callno)
{
    (void)callno;
    char k = fake_classify(cmd);
    if (k != 'S' && k != 'A') return;
    fake_set_all(f->set, f->n, g_held > 0 ? FO_NIL : FO_OK, 0, 0);
    if (g_held > 0) g_held--;
}

static rl_opts wait_opts(int wait_ms)
{
    return (rl_opts){.retry_count = 3,
                     .retry_delay_ms = 200,
                     .retry_jitter_ms = 0,
                     .wait_ms = wait_ms,
                     .drift_factor = 0.01,
                     .wake_on_release = 1};
}

/* ====================================================================== */

static void test_no_wait_does_not_subscribe(void)
{
    rl_lock_info info;
    setup(3);
    g_held = 100;
    F.hook = hook_held;
    rl_opts o = wait_opts(0);
    CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_CONFLICT);
    CHECK_EQ(FW.subscribes, 0);
    CHECK_EQ(F.clock.nsleeps, 3); /* plain retries sleep retry_delay */
    CHECK_EQ(fake_count(&F, 'A'), 0);
    CHECK_EQ(info.wakeups, 0);
}

static void test_wake_off_does_not_subscribe(void)
{
    rl_lock_info info;
    setup(3);
    g_held = 100;
    F.hook = hook_held;
    rl_opts o = wait_opts(1000);
    o.wake_on_release = 0;
    CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_CONFLICT);
    CHECK_EQ(FW.subscribes, 0);
    CHECK(F.clock.nsleeps >= 4);
    CHECK_EQ(info.wakeups, 0); /* a polling waiter is never woken */
}

static void test_uncontended_subscribes_first_and_unsubscribes(void)
{
    rl_lock_info info;
    setup(3);
    rl_opts o = wait_opts(1000);
    CHECK_EQ(rl_acquire(&F.ctx, "res", 3, 1000, &o, &info, NULL), RL_ACQUIRED);
    CHECK_EQ(FW.subscribes, 1);
    CHECK_EQ(FW.calls_at_subscribe, 0); /* before the first attempt */
    CHECK_STR(FW.key, "res");
    CHECK_EQ(FW.readies, 0); /* an uncontended lock does not wait for the confirmation */
    CHECK_EQ(FW.unsubscribes, 1);
    CHECK_EQ(F.ncalls, 1);
    CHECK_EQ(F.calls[0].kind, 'S');
}

/* held; a release message comes at +50 ms: the next attempt goes then, not at the timer */
static void test_wakes_on_release(void)
{
    rl_lock_info info;
    setup(3);
    g_held = 2; /* the first attempt and the one right after the confirmation */
    F.hook = hook_held;
    uint64_t t0 = F.clock.now;
    fw_add(t0 + 50000, RL_WAKE_RELEASED, 1);
    rl_opts o = wait_opts(5000);
    CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ACQUIRED);
    CHECK_EQ(FW.readies, 1);
    CHECK_EQ(F.calls[0].kind, 'S');
    /* the undecided node gets the (queued) release of the failed attempt */
    CHECK_EQ(F.calls[1].kind, 'R');
    CHECK(F.calls[1].nowait);
    int sets = 0, last = -1;
    for (int i = 0; i < F.ncalls; i++)
        if (F.calls[i].kind == 'S' || F.calls[i].kind == 'A') {
            sets++;
            last = i;
        }
    CHECK_EQ(sets, 3);
    REQUIRE(last >= 0);
    /* alone in its shard: nobody to tell (ARGV[3] ""); a waiting writer (ARGV[6]: docs/api.md "Read locks") */
    CHECK_EQ(F.calls[last].kind, 'A');
    CHECK_EQ(F.calls[last].argc, 10);
    CHECK_EQ(F.calls[last].argvlen[6], 0);
    CHECK_STR(F.calls[last].argv[9], "1400"); /* 2 x (200 + 0) ms + 1000 */
    CHECK(F.calls[last].t_start >= t0 + 50000 && F.calls[last].t_start < t0 + 51000);
    CHECK_EQ(F.clock.nsleeps, 0); /* no retry_delay slept */
    CHECK_EQ(FW.unsubscribes, 1);
    CHECK_EQ(info.wakeups, 1); /* the release sent the third attempt */
    CHECK_EQ(info.attempts, 3);
}

/* nobody releases (a holder crashed): attempts at the timer, never past the deadline */
static void test_timer_fallback_and_deadline(void)
{
    rl_lock_info info;
    setup(3);
    g_held = 1000;
    F.hook = hook_held;
    uint64_t t0 = F.clock.now;
    rl_opts o = wait_opts(1000);
    CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_CONFLICT);
    CHECK(F.clock.now <= t0 + 1000000 + 1000); /* the deadline, plus the last attempt's round trip */
    CHECK(F.clock.now >= t0 + 1000000);
    /* first attempt, the one after the confirmation, then one per 200 ms */
    int sets = fake_count(&F, 'S') + fake_count(&F, 'A');
    CHECK(sets >= 6 && sets <= 8);
    CHECK_EQ(FW.unsubscribes, 1);
    CHECK_EQ(info.wakeups, 0); /* every attempt after the timer */
}

/* another waiter's "acquired" while we wait is no reason to try */
static void test_acquired_message_keeps_waiting(void)
{
    rl_lock_info info;
    setup(3);
    g_held = 2;
    F.hook = hook_held;
    uint64_t t0 = F.clock.now;
    fw_add(t0 + 10000, RL_WAKE_ACQUIRED, 0);
    fw_add(t0 + 20000, RL_WAKE_ACQUIRED, 0);
    fw_add(t0 + 30000, RL_WAKE_RELEASED, 1);
    rl_opts o = wait_opts(5000);
    CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ACQUIRED);
    CHECK_EQ(fake_count(&F, 'S') + fake_count(&F, 'A'), 3);
    CHECK(F.clock.now >= t0 + 30000 && F.clock.now < t0 + 31000);
    CHECK_EQ(info.wakeups, 1); /* the "acquired" messages woke it, but sent no attempt */
}

/* three waiters: hold back; an "acquired" meanwhile sends us back to waiting */
static void test_herd_hold_back_stands_down(void)
{
    rl_lock_info info;
    setup(5);
    g_held = 2;
    F.hook = hook_held;
    F.rnd.len = 1;
    F.rnd.bytes[0] = 0xff; /* the longest hold-back */
    uint64_t t0 = F.clock.now;
    fw_add(t0 + 10000, RL_WAKE_RELEASED, 3);
    fw_add(t0 + 10050, RL_WAKE_ACQUIRED, 0); /* someone went first */
    fw_add(t0 + 40000, RL_WAKE_RELEASED, 3);
    rl_opts o = wait_opts(5000);
    CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ACQUIRED);
    /* no attempt after the first release: 2 before waiting, 1 after the second release */
    CHECK_EQ(fake_count(&F, 'S') + fake_count(&F, 'A'), 3);
    CHECK(F.clock.now > t0 + 40000);
    CHECK_EQ(info.wakeups, 1); /* the first release's hold-back stood down: no attempt, no wake-up */
    /* with others holding back in its shard, the winning attempt announces itself there */
    REQUIRE(F.ncalls >= 1);
    CHECK_EQ(F.calls[F.ncalls - 1].kind, 'A');
    CHECK(FW.shard >= 0 && FW.shard < RL_WAKE_SHARDS * RL_WAKE_SUBS);
    CHECK_EQ(F.calls[F.ncalls - 1].argc, 10);
    char name[3];
    rl_wake_shard_name(FW.shard, name);
    CHECK_STR(F.calls[F.ncalls - 1].argv[6], name); /* its group's byte, then its shard's */
    CHECK(F.clock.nsleeps >= 2);                    /* the hold-backs are sleeps */
    /* the hold-back spans (waiters - 1) slots of a round trip, at least RL_SLOT_MIN_US each */
    CHECK(F.clock.sleep_us[0] > 0 && F.clock.sleep_us[0] < 2 * 2000);
}

/* many waiters: nobody sleeps in poll; naps, then reads the news */
static void test_many_waiters_nap_and_look(void)
{
    rl_lock_info info;
    setup(5);
    g_held = 3;
    F.hook = hook_held;
    uint64_t t0 = F.clock.now;
    fw_add(t0 + 10000, RL_WAKE_RELEASED, 40); /* tells how many wait */
    fw_add(t0 + 10200, RL_WAKE_ACQUIRED, 0);
    fw_add(t0 + 30000, RL_WAKE_RELEASED, 40);
    rl_opts o = wait_opts(5000);
    CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ACQUIRED);
    CHECK(FW.latests >= 2);
    CHECK(F.clock.now >= t0 + 30000);
    /* the first release met an "acquired" in its hold-back; the second sent attempt 3 (still
     * held: nil), the timer attempt 4 */
    CHECK_EQ(info.attempts, 4);
    CHECK_EQ(info.wakeups, 1);
    /* a nap never spans more than waiters slots of the largest size */
    for (int i = 0; i < F.clock.nsleeps && i < FAKE_MAX_SLEEPS; i++) CHECK(F.clock.sleep_us[i] <= 40u * 1000u + 1);
}

static void test_subscribe_failure_sleeps(void)
{
    rl_lock_info info;
    setup(3);
    FW.fail_subscribe = 1;
    g_held = 1000;
    F.hook = hook_held;
    rl_opts o = wait_opts(500);
    CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_CONFLICT);
    CHECK_EQ(FW.subscribes, 1);
    CHECK_EQ(FW.waits, 0);
    CHECK_EQ(FW.unsubscribes, 0);
    CHECK(F.clock.nsleeps >= 2);
    for (int i = 0; i < F.ncalls; i++) /* (its attempts are a waiting writer's, never announced) */
        if (F.calls[i].kind == 'A') CHECK_EQ(F.calls[i].argvlen[6], 0);
}

/* an error of the transport ends the wait: unsubscribed all the same */
static int g_fail_at;
static void hook_fail(fake *f, const rl_cmd *cmd, int callno)
{
    hook_held(f, cmd, callno);
    if (callno == g_fail_at) f->fail_fanout = 1;
}
static void test_error_unsubscribes(void)
{
    rl_lock_info info;
    setup(3);
    g_held = 1000;
    g_fail_at = 0;
    F.hook = hook_fail;
    rl_opts o = wait_opts(500);
    F.fail_fanout = 1;
    CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ERROR);
    CHECK_EQ(FW.unsubscribes, 1);
}

/* A cleanup's release id is marked (rl.h RL_ID_CLEANUP): RL_ID_QUIET when
 * the attempt it undoes was sent because a cleanup woke us, RL_ID_CLEANUP
 * otherwise. SETs: held everywhere twice, then won on node 0 only twice
 * (after a cleanup's wake-up, then after the timer), then won. */
static int g_setn;
static void hook_minority(fake *f, const rl_cmd *cmd, int callno)
{
    (void)callno;
    char k = fake_classify(cmd);
    if (k != 'S' && k != 'A') return;
    g_setn++;
    fake_set_all(f->set, f->n, g_setn <= 4 ? FO_NIL : FO_OK, 0, 0);
    if (g_setn == 3 || g_setn == 4) f->set[0].kind = FO_OK;
}

static void test_cleanup_marks(void)
{
    rl_lock_info info;
    setup(3);
    g_setn = 0;
    F.hook = hook_minority;
    uint64_t t0 = F.clock.now;
    fw_add(t0 + 50000, RL_WAKE_RELEASED, 1);
    FW.ev[0].cleanup = 1;
    rl_opts o = wait_opts(5000);
    CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ACQUIRED);
    CHECK_EQ(g_setn, 5);
    char marks[8] = {0};
    int nrel = 0;
    for (int i = 0; i < F.ncalls; i++)
        if (F.calls[i].kind == 'R' && nrel < 7) {
            CHECK_EQ(F.calls[i].argvlen[5], RL_RELEASE_ID_LEN);
            marks[nrel++] = F.calls[i].argv[5][0];
        }
    /* the first two: their undecided node's (the call stopped at two nils); the third attempt
     * (woken by a cleanup) and the fourth (the timer's) each took node 0 */
    CHECK_STR(marks, "zzyz");
    CHECK_EQ(info.wakeups, 1);
}

/* ---- the pub/sub arrays of a subscriber connection, parsed without allocation ---- */
static rl_conn *sub_conn(void)
{
    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    conf.socket = (char *)"/nonexistent";
    rl_conn *c = rl_conn_new_subscriber(&conf);
    if (c) c->push_decode = rl_wait_push_element; /* (as rlc_sub_send gives it) */
    return c;
}

static uint64_t h(const char *s)
{
    uint64_t x = 1469598103934665603ull;
    for (; *s; s++) x = (x ^ (unsigned char)*s) * 1099511628211ull;
    return x;
}

static void test_push_message_parsed(void)
{
    rl_conn *c = sub_conn();
    REQUIRE(c);
    const char *m = "*3\r\n$7\r\nmessage\r\n$19\r\nredlock:released:ab\r\n$7\r\n12 tok1\r\n";
    /* in pieces, as reads may cut it */
    for (size_t off = 0, len = strlen(m); off < len; off += 5) rlc_feed(c, m + off, len - off < 5 ? len - off : 5);
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->slot.type, RL_REPLY_ARRAY);
    CHECK_EQ(c->slot.integer, 3);
    CHECK_EQ(c->push.kind, PUSH_MESSAGE);
    CHECK(c->push.chan == h("redlock:released:ab"));
    CHECK_EQ(c->push.number, 12);
    CHECK(c->push.id == h("tok1"));
    CHECK_EQ(c->push.idmark, 't');
    /* a cleanup's id and a quiet one's (rl.h RL_ID_CLEANUP, RL_ID_QUIET), and no id at all */
    const char *q = "*3\r\n$7\r\nmessage\r\n$1\r\nx\r\n$4\r\n1 z5\r\n"
                    "*3\r\n$7\r\nmessage\r\n$1\r\nx\r\n$4\r\n1 y5\r\n"
                    "*3\r\n$7\r\nmessage\r\n$1\r\nx\r\n$2\r\n1 \r\n";
    rlc_feed(c, q, strlen(q));
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->push.idmark, RL_ID_CLEANUP);
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->push.idmark, RL_ID_QUIET);
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->push.idmark, '\0');
    const char *a = "*3\r\n$7\r\nmessage\r\n$19\r\nredlock:released:ab\r\n$8\r\nacquired\r\n"
                    "*3\r\n$9\r\nsubscribe\r\n$1\r\nx\r\n:1\r\n";
    rlc_feed(c, a, strlen(a));
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->push.number, -1);
    CHECK_EQ(c->push.first, 'a');
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->push.kind, PUSH_SUBSCRIBE);
    CHECK(c->push.chan == h("x"));
    rl_conn_free(c);
}

static void test_push_odd_shapes(void)
{
    rl_conn *c = sub_conn();
    REQUIRE(c);
    /* an integer or nested array in first place is no known kind */
    const char *a = "*3\r\n:1\r\n$1\r\nx\r\n$1\r\ny\r\n*2\r\n*1\r\n$7\r\nmessage\r\n$1\r\nx\r\n";
    rlc_feed(c, a, strlen(a));
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->push.kind, PUSH_OTHER);
    CHECK_EQ(rlc_next_reply(c), 1);
    CHECK_EQ(c->push.kind, PUSH_OTHER);
    CHECK_EQ(c->slot.integer, 2);
    /* a command connection never parses pub/sub */
    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    conf.socket = (char *)"/nonexistent";
    rl_conn *d = rl_conn_new(&conf);
    REQUIRE(d);
    const char *m = "*3\r\n$7\r\nmessage\r\n$1\r\nx\r\n$1\r\n1\r\n";
    rlc_feed(d, m, strlen(m));
    CHECK_EQ(rlc_next_reply(d), 1);
    CHECK_EQ(d->push.kind, PUSH_NONE);
    rl_conn_free(d);
    rl_conn_free(c);
}

static void test_scripts_publish_on_the_channel(void)
{
    CHECK(strstr(rl_script_release, "\"" RL_WAKE_CHANNEL "\"") != NULL);
    CHECK(strstr(rl_script_release, "pcall(\"publish\"") != NULL);
    /* RL_WAKE_SHARDS groups of RL_WAKE_SUBS shards, named as rl_wait.c
     * subscribes (rl_wake_shard_name), in every release script */
    CHECK_EQ(RL_WAKE_SHARDS, 32);
    CHECK_EQ(RL_WAKE_SUBS, 32);
    char name[3];
    rl_wake_shard_name(0, name);
    CHECK_STR(name, "00");
    rl_wake_shard_name(32 * 5 + 7, name);
    CHECK_STR(name, "57");
    rl_wake_shard_name(RL_WAKE_SHARDS * RL_WAKE_SUBS - 1, name);
    CHECK_STR(name, "OO");
    const char *rels[] = {rl_script_release, rl_script_release_all, rl_script_release_shared};
    for (int i = 0; i < 3; i++) {
        CHECK(strstr(rels[i], "for k = 0, 31 do ch[k + 1] = ") != NULL);
        CHECK(strstr(rels[i], "string.char(48 + k)") != NULL);
        CHECK(strstr(rels[i], "for q = 0, 31 do sc[q + 1] = ch[j + 1] .. string.char(48 + q)") != NULL);
        CHECK(strstr(rels[i], "% 32") != NULL);
        CHECK(strstr(rels[i], "\\0q") != NULL); /* and the first fair waiter (fair_wake, lock/lua/fragments.lua) */
    }
    CHECK(strstr(rl_script_acquire, "\"" RL_WAKE_CHANNEL "\"") != NULL);
    CHECK(strstr(rl_script_acquire, "\"NX\",\"PX\"") != NULL);
    CHECK_EQ(strlen(rl_script_acquire_sha), 40);
}

/* A fair waiter's first attempt answers the nodes' queue counters; the key
 * stays held. One node's counter far above the others' (2^53 and more, or
 * more than 2^24 above every other answer: the fence's rule, lock/rl_fence.c) is
 * not believed: the ticket is the highest of a quorum of the others, which
 * the fan-out waits for, and the wait ends in a conflict, not a failure. */
static long long g_ints[RL_MAX_NODES];
static int g_asks;
static void hook_fair_counters(fake *f, const rl_cmd *cmd, int callno)
{
    (void)callno;
    if (fake_classify(cmd) != 'A') return;
    for (int i = 0; i < f->n; i++) {
        f->set[i].kind = g_asks == 0 ? FO_INT : FO_NIL;
        f->set[i].v = g_ints[i];
    }
    g_asks++;
}

static void test_fair_ticket_outlier(void)
{
    const long long outliers[] = {9000000000000000001LL, (1LL << 53), (1LL << 40), (1LL << 24) + 6};
    for (int k = 0; k < 4; k++) {
        rl_lock_info info;
        setup(5);
        F.hook = hook_fair_counters;
        g_asks = 0;
        long long ints[5] = {outliers[k], 5, 6, 7, 8};
        memcpy(g_ints, ints, sizeof(ints));
        rl_opts o = wait_opts(1000);
        o.fair = 1;
        CHECK_EQ(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_CONFLICT);
        REQUIRE(F.ncalls >= 3 && F.calls[0].kind == 'A');
        /* the first attempt: decided once 3 believed answers came (node 0's is not one) */
        CHECK_EQ(F.calls[0].decide_calls, k < 3 ? 4 : 3);
        int later = -1;
        for (int i = 1; i < F.ncalls && later < 0; i++)
            if (F.calls[i].kind == 'A') later = i;
        REQUIRE(later > 0);
        /* ARGV[8], the ticket: 5, 6, 7's highest (a 2^24 + 6 is believed: not 2^24 above 8) */
        CHECK_EQ(F.calls[later].argc, 13);
        CHECK_STR(F.calls[later].argv[11], k < 3 ? "7" : "16777222");
    }
}

static const test_case tests[] = {
    {"wait:no_wait_does_not_subscribe", test_no_wait_does_not_subscribe},
    {"wait:wake_off_does_not_subscribe", test_wake_off_does_not_subscribe},
    {"wait:uncontended_subscribes_first_and_unsubscribes", test_uncontended_subscribes_first_and_unsubscribes},
    {"wait:wakes_on_release", test_wakes_on_release},
    {"wait:timer_fallback_and_deadline", test_timer_fallback_and_deadline},
    {"wait:acquired_message_keeps_waiting", test_acquired_message_keeps_waiting},
    {"wait:herd_hold_back_stands_down", test_herd_hold_back_stands_down},
    {"wait:many_waiters_nap_and_look", test_many_waiters_nap_and_look},
    {"wait:subscribe_failure_sleeps", test_subscribe_failure_sleeps},
    {"wait:error_unsubscribes", test_error_unsubscribes},
    {"wait:cleanup_marks", test_cleanup_marks},
    {"wait:push_message_parsed", test_push_message_parsed},
    {"wait:push_odd_shapes", test_push_odd_shapes},
    {"wait:scripts_publish_on_the_channel", test_scripts_publish_on_the_channel},
    {"wait:fair_ticket_outlier", test_fair_ticket_outlier},
};

int main(int argc, char **argv)
{
    test_counts c = run_tests(tests, N_TESTS(tests), argc, argv, NULL, NULL);
    return tests_summary(c);
}
