/* permit_tests.c -- semaphores (docs/api.md "Semaphores"): a permit is a
 * quorum on one slot. What a node's permit answer may be, over the fake
 * transport; permits against real nodes, and a hostile node's answer over a
 * real socket (tests/nodes_fixture.h). A suite of build/unit_tests. */
#define _GNU_SOURCE
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/unit_tests.h"
#include "tests/fake.h"
#include "tests/nodes_fixture.h"

#include <hiredis/hiredis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rl_acquire_permit / rl_find_permit with what they gave into the test's
 * own variables (its slots, their length, the other limit or the count) */
static int permit_into(const rl_ctx *c, const rl_permit_req *req, const rl_opts *o, rl_lock_info *info, char **slots,
                       size_t *slotslen, int *other, rl_call *call)
{
    rl_permit_got got;
    int r = rl_acquire_permit(c, req, o, info, &got, call);
    *slots = got.slots;
    *slotslen = got.slotslen;
    *other = got.other_limit;
    return r;
}
static int permit_find_into(const rl_ctx *c, const rl_permit_req *req, const char *token, size_t token_len,
                            char **slots, size_t *slotslen, int *found, rl_call *call)
{
    rl_permit_got got;
    int r = rl_find_permit(c, req, token, token_len, &got, call);
    *slots = got.slots;
    *slotslen = got.slotslen;
    *found = got.found;
    return r;
}

static fake F; /* large: static, reset by fake_init in each test */

static const rl_opts opts0 = {
    .retry_count = 0, .retry_delay_ms = 0, .retry_jitter_ms = 0, .wait_ms = 0, .drift_factor = 0.01};

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
    return permit_into(&F.ctx, &(rl_permit_req){"s", 1, limit, weight, 10000}, &opts0, &p->info, &p->slots, &p->sl,
                       &p->other, &p->call);
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
            r = permit_find_into(&F.ctx, &(rl_permit_req){.key = "s", .keylen = 1, .limit = 64}, "tok0123456789abcdef",
                                 19, &pt.slots, &pt.sl, &found, &pt.call);
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
        CHECK_OUT(permit_find_into(&F.ctx, &(rl_permit_req){.key = "s", .keylen = 1, .limit = 3}, "tok0123456789abcdef",
                                   19, &pt.slots, &pt.sl, &found, &pt.call),
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

/* ---- against real nodes ---- */

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
        CHECK_OUT(
            permit_into(&t.ctx, &(rl_permit_req){base, 5, 3, 1, 10000}, &o, &p[k], &slots[k], &sl[k], &other, &call),
            RL_ACQUIRED);
    CHECK(slots[0] && slots[1] && slots[2] && rl_key_is_list(slots[0], sl[0]));
    CHECK_EQ(echo_all(&t, "sem-sync", call.res), NNODES);
    for (int i = 0; i < NNODES; i++) {
        CHECK_EQ(slot_holders(base, 3, NULL, i), 3);
        for (int k = 0; k < 3; k++) CHECK_EQ(slot_holders(base, 3, p[k].token, i), 1);
    }
    /* the limit is reached: a fourth is a conflict and sets nothing */
    CHECK_OUT(permit_into(&t.ctx, &(rl_permit_req){base, 5, 3, 1, 10000}, &o, &p[3], &slots[3], &sl[3], &other, &call),
              RL_CONFLICT);
    CHECK(!slots[3]);
    /* another limit while permits are held: RL_LIMIT naming it */
    CHECK_OUT(permit_into(&t.ctx, &(rl_permit_req){base, 5, 5, 1, 10000}, &o, &p[3], &slots[3], &sl[3], &other, &call),
              RL_LIMIT);
    CHECK_EQ(other, 3);
    /* a permit is released, extended, asked about through its slot list */
    CHECK_OUT(rl_is_held(&t.ctx, slots[1], sl[1], p[1].token, p[1].token_len, &call), RL_YES);
    CHECK_OUT(rl_extend(&t.ctx, slots[1], sl[1], p[1].token, 20000, 0.01, &p[1], &call), RL_EXTENDED);
    CHECK_OUT(rl_release(&t.ctx, slots[1], sl[1], p[1].token, &call), RL_RELEASED);
    CHECK_OUT(rl_is_held(&t.ctx, slots[1], sl[1], p[1].token, p[1].token_len, &call), RL_NO);
    free(slots[1]);
    /* one free: taken in one round trip; weight 2 then finds one free slot: conflict */
    CHECK_OUT(permit_into(&t.ctx, &(rl_permit_req){base, 5, 3, 2, 10000}, &o, &p[3], &slots[3], &sl[3], &other, &call),
              RL_CONFLICT);
    CHECK_OUT(permit_into(&t.ctx, &(rl_permit_req){base, 5, 3, 1, 10000}, &o, &p[1], &slots[1], &sl[1], &other, &call),
              RL_ACQUIRED);
    CHECK_EQ(p[1].attempts, 1);
    for (int k = 0; k < 3; k++) {
        CHECK_OUT(rl_release(&t.ctx, slots[k], sl[k], p[k].token, &call), RL_RELEASED);
        free(slots[k]);
        slots[k] = NULL;
    }
    /* weight 3 of 3: every slot */
    CHECK_OUT(permit_into(&t.ctx, &(rl_permit_req){base, 5, 3, 3, 10000}, &o, &p[0], &slots[0], &sl[0], &other, &call),
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
        CHECK_OUT(
            permit_into(&t.ctx, &(rl_permit_req){base, 5, 2, 1, 10000}, &o, &p[0], &slots[0], &sl[0], &other, &call),
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
    CHECK_OUT(permit_into(&t.ctx, &(rl_permit_req){base, 5, 2, 1, 10000}, &o, &p[0], &slots[0], &sl[0], &other, &call),
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

/* A node whose permit answer overflows a number (what the first slot
 * parser added into a signed long with no bound, then wrote below its
 * bitmap) over a real socket and the reply parser: a failed node, and the
 * attempt's trim goes to it; restore's find the same */
static void test_net_permit_hostile(void)
{
    NET_REQUIRE_NODES(); /* for g_dir */
    char hs_acquire[4096], hs_find[4096];
    const char *const acquire[] = {
        hs_replies(hs_acquire, sizeof(hs_acquire), "$41\r\n18446744073709551552-18446744073709551615\r\n"), ":0\r\n"};
    const char *const find[] = {hs_replies(hs_find, sizeof(hs_find), "$19\r\n9223372036854775808\r\n")};
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
                CHECK_OUT(permit_find_into(&t.ctx, &(rl_permit_req){.key = "h", .keylen = 1, .limit = 64},
                                           "tok0123456789abcdef", 19, &slots, &sl, &found, &call),
                          RL_NO_QUORUM);
            else
                CHECK_OUT(
                    permit_into(&t.ctx, &(rl_permit_req){"h", 1, 64, 1, 10000}, &o, &info, &slots, &sl, &other, &call),
                    RL_NO_QUORUM);
            CHECK(!slots);
            CHECK_EQ(call.res[0].err, RL_E_PROTO);
            tnet_close(&t);
        }
        scripted_stop(&srv);
    }
}

static const test_case tests[] = {
    {"permit_hostile_answers", test_permit_hostile_answers},
    {"permit_answers", test_permit_answers},
    {"permit_same_nodes", test_permit_same_nodes},
    {"permit_tries_slots_that_can_win", test_permit_tries_slots_that_can_win},
    {"net_permit", test_net_permit},
    {"net_permit_hostile", test_net_permit_hostile},
};

const test_suite permit_suite = {tests, N_TESTS(tests)};
