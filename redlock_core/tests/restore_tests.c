/* restore_tests.c -- C unit tests of the core for docs/api.md "Restore" (fake transport and clock):
 * rl_is_held() (GET compared with our token, decided at quorum), rl_force_release() (DEL on
 * every node), and rl_acquire() with a caller-chosen token.
 *
 * Usage: restore_tests [substring]   runs the tests whose name contains it.
 * Prints PASS/FAIL per test and ends with "N passed, N failed". */
#define _GNU_SOURCE
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/fake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static fake F;
static const rl_opts opts0 = {.retry_count = 0, .drift_factor = 0.01};

static const char TOKEN[] = "0123456789abcdef0123456789abcdef01234567";

/* GET on node i answers s (NULL: nil) */
static void get_answers(int i, const char *s)
{
    F.get[i].kind = s ? FO_STR : FO_NIL;
    F.get_str[i] = s;
}

static void get_fails(int i, int err)
{
    F.get[i].kind = FO_FAIL;
    F.get[i].err = err;
}

static const fake_rec *last(void) { return &F.calls[F.ncalls - 1]; }

static int delivered(const fake_rec *r)
{
    int d = 0;
    for (int i = 0; i < r->n; i++) d += r->delivered[i];
    return d;
}

/* ======================================================================
 * rl_is_held
 * ====================================================================== */
static void test_is_held_quorum_yes(void)
{
    rl_call call;
    fake_init(&F, 5);
    for (int i = 0; i < 3; i++) get_answers(i, TOKEN);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, strlen(TOKEN), &call), RL_YES);
    CHECK_EQ(F.ncalls, 1);
    CHECK_EQ(last()->kind, 'G');
    CHECK_EQ(last()->argc, 2);
    CHECK_STR(last()->argv[1], "k");
    /* decided at quorum: the fourth and fifth answers are not awaited */
    CHECK_EQ(delivered(last()), 3);
    CHECK(last()->stopped_early);
    CHECK_EQ(call.ok, 3);
    /* sent to every node */
    for (int i = 0; i < 5; i++) CHECK_EQ(F.node_log[i][0], 'G');
}

static void test_is_held_other_token_no(void)
{
    fake_init(&F, 5);
    get_answers(0, TOKEN);
    get_answers(1, TOKEN);
    get_answers(2, "someone-else-s-token-0123456789");
    get_answers(3, "someone-else-s-token-0123456789");
    get_answers(4, NULL);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, strlen(TOKEN), NULL), RL_NO);
    /* 2 yes, 2 no and 1 pending could still make 3: all five awaited */
    CHECK_EQ(delivered(last()), 5);
    /* the three others answer first: no after 3 answers, 2 pending cannot make 3 */
    int order[5] = {2, 3, 4, 0, 1};
    memcpy(F.order, order, sizeof(order));
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, strlen(TOKEN), NULL), RL_NO);
    CHECK_EQ(delivered(last()), 3);
    CHECK(last()->stopped_early);
}

static void test_is_held_nil_everywhere_no(void)
{
    fake_init(&F, 3);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, strlen(TOKEN), NULL), RL_NO);
    /* two nils: a yes quorum can no longer be, and a quorum answered */
    CHECK_EQ(delivered(last()), 2);
}

/* fewer than a quorum answered: not "no", but "could not ask" */
static void test_is_held_no_quorum(void)
{
    rl_call call;
    fake_init(&F, 5);
    get_answers(0, TOKEN);
    get_answers(1, TOKEN);
    get_fails(2, RL_E_TIMEOUT);
    get_fails(3, RL_E_REFUSED);
    get_fails(4, RL_E_IO);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, strlen(TOKEN), &call), RL_NO_QUORUM);
    CHECK_EQ(call.answered, 2);
    CHECK_EQ(call.failed, 3);
    /* the same with nothing held: still no quorum, never "no" */
    fake_init(&F, 5);
    get_fails(0, RL_E_TIMEOUT);
    get_fails(1, RL_E_TIMEOUT);
    get_fails(2, RL_E_TIMEOUT);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, strlen(TOKEN), NULL), RL_NO_QUORUM);
    /* decided as soon as 3 failed: the other two are not awaited */
    CHECK_EQ(delivered(last()), 3);
}

/* a quorum answered, but only 2 of 5 hold our token (2 failed): no */
static void test_is_held_quorum_answered_minority_holds(void)
{
    fake_init(&F, 5);
    get_answers(0, TOKEN);
    get_answers(1, TOKEN);
    get_answers(2, NULL);
    get_fails(3, RL_E_TIMEOUT);
    get_fails(4, RL_E_TIMEOUT);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, strlen(TOKEN), NULL), RL_NO);
}

/* an error reply (WRONGTYPE) is a node failure like any other */
static void test_is_held_error_reply_counts_failed(void)
{
    fake_init(&F, 3);
    get_answers(0, TOKEN);
    F.get[1].kind = FO_ERR;
    F.get[2].kind = FO_ERR;
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, strlen(TOKEN), NULL), RL_NO_QUORUM);
}

/* the whole token is compared, also a 128-byte one: a prefix, a longer value
 * or one differing in the last byte is not ours */
static void test_is_held_compares_whole_token(void)
{
    char tok[RL_TOKEN_MAX + 1], last_diff[RL_TOKEN_MAX + 1], prefix[RL_TOKEN_MAX + 1], longer[RL_TOKEN_MAX + 2];
    memset(tok, 'x', RL_TOKEN_MAX);
    tok[RL_TOKEN_MAX] = '\0';
    memcpy(last_diff, tok, sizeof(tok));
    last_diff[RL_TOKEN_MAX - 1] = 'y';
    memcpy(prefix, tok, sizeof(tok));
    prefix[RL_TOKEN_MAX - 1] = '\0';
    memcpy(longer, tok, RL_TOKEN_MAX);
    longer[RL_TOKEN_MAX] = 'x';
    longer[RL_TOKEN_MAX + 1] = '\0';

    fake_init(&F, 3);
    for (int i = 0; i < 3; i++) get_answers(i, tok);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, tok, RL_TOKEN_MAX, NULL), RL_YES);

    const char *others[] = {last_diff, prefix, longer};
    for (int k = 0; k < 3; k++) {
        fake_init(&F, 3);
        get_answers(0, tok);
        get_answers(1, others[k]);
        get_answers(2, others[k]);
        CHECK_OUT(rl_is_held(&F.ctx, "k", 1, tok, RL_TOKEN_MAX, NULL), RL_NO);
    }
    /* binary tokens (no NUL) compare as bytes */
    const char bin[] = "\x01\xff\x80 token\twith\xc3\xa9 bytes";
    fake_init(&F, 3);
    for (int i = 0; i < 3; i++) get_answers(i, bin);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, bin, strlen(bin), NULL), RL_YES);
}

static void test_is_held_bad_args(void)
{
    char big[RL_TOKEN_MAX + 2];
    memset(big, 'a', sizeof(big));
    fake_init(&F, 3);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, 0, NULL), RL_ERROR);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, NULL, 16, NULL), RL_ERROR);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, big, RL_TOKEN_MAX + 1, NULL), RL_ERROR);
    CHECK_EQ(F.ncalls, 0);
    F.fail_fanout = 1;
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, strlen(TOKEN), NULL), RL_ERROR);
}

static void test_is_held_same_server(void)
{
    fake_init(&F, 3);
    for (int i = 0; i < 3; i++) get_answers(i, TOKEN);
    get_fails(2, RL_E_SAME_SERVER);
    F.order[0] = 2;
    F.order[1] = 0;
    F.order[2] = 1;
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, TOKEN, strlen(TOKEN), NULL), RL_SAME_SERVER);
}

/* ======================================================================
 * rl_force_release
 * ====================================================================== */
static void test_force_release_deletes_everywhere(void)
{
    rl_call call;
    fake_init(&F, 5);
    /* whatever a node deleted (1) or had nothing (0): it answered */
    F.del[0].v = 0;
    F.del[2].v = 0;
    CHECK_OUT(rl_force_release(&F.ctx, "pre:k", 5, &call), RL_RELEASED);
    CHECK_EQ(F.ncalls, 1);
    CHECK_EQ(last()->kind, 'D');
    CHECK_EQ(last()->argc, 2);
    CHECK_STR(last()->argv[1], "pre:k");
    /* sent to every node, decided at quorum */
    for (int i = 0; i < 5; i++) CHECK_EQ(F.node_log[i][0], 'D');
    CHECK_EQ(delivered(last()), 3);
    CHECK_EQ(call.ok, 3);
}

static void test_force_release_no_quorum(void)
{
    rl_call call;
    fake_init(&F, 5);
    fake_set_all(F.del, 3, FO_FAIL, 0, RL_E_TIMEOUT);
    CHECK_OUT(rl_force_release(&F.ctx, "k", 1, &call), RL_NO_QUORUM);
    CHECK_EQ(call.failed, 3);
    /* 2 failed, 3 answered: released */
    fake_init(&F, 5);
    fake_set_all(F.del, 2, FO_FAIL, 0, RL_E_REFUSED);
    CHECK_OUT(rl_force_release(&F.ctx, "k", 1, NULL), RL_RELEASED);
    /* an error reply is no answer of DEL */
    fake_init(&F, 3);
    F.del[0].kind = FO_ERR;
    F.del[1].kind = FO_ERR;
    CHECK_OUT(rl_force_release(&F.ctx, "k", 1, NULL), RL_NO_QUORUM);
}

static void test_force_release_bad_args(void)
{
    fake_init(&F, 3);
    F.fail_fanout = 1;
    CHECK_OUT(rl_force_release(&F.ctx, "k", 1, NULL), RL_ERROR);
    fake_init(&F, 3);
    F.ctx.n = 0;
    CHECK_OUT(rl_force_release(&F.ctx, "k", 1, NULL), RL_ERROR);
    CHECK_EQ(F.ncalls, 0);
}

/* ======================================================================
 * rl_acquire with a caller-chosen token (the "token" option)
 * ====================================================================== */
static void test_acquire_caller_token(void)
{
    rl_lock_info info;
    rl_opts o = opts0;
    char tok[RL_TOKEN_MAX + 2];
    memset(tok, 'q', sizeof(tok));
    o.token = tok;

    /* 16 and 128 bytes are accepted and sent as they are */
    size_t ok_lens[] = {RL_TOKEN_MIN, 40, RL_TOKEN_MAX};
    for (size_t k = 0; k < 3; k++) {
        fake_init(&F, 3);
        o.token_len = ok_lens[k];
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ACQUIRED);
        CHECK_EQ(info.token_len, ok_lens[k]);
        CHECK_EQ(strlen(info.token), ok_lens[k]);
        CHECK(memcmp(info.token, tok, ok_lens[k]) == 0);
        /* the attempt's script: EVALSHA sha 2 key key\0a token ttl "" nonce */
        CHECK_EQ(F.calls[0].kind, 'A');
        CHECK_EQ(F.calls[0].argc, 9);
        CHECK_STR(F.calls[0].argv[2], "2");
        CHECK_EQ(F.calls[0].argvlen[4], 3);
        CHECK(memcmp(F.calls[0].argv[4], "k\0a", 3) == 0);
        CHECK_EQ(F.calls[0].argvlen[5], ok_lens[k]);
        CHECK_EQ(F.calls[0].argvlen[7], 0);
        CHECK_EQ(F.calls[0].argvlen[8], RL_TOKEN_LEN);
        CHECK_EQ(F.rnd.calls, 1); /* the attempt's nonce, no random token */
    }
    /* 15 and 129 bytes: refused before anything is sent */
    size_t bad_lens[] = {RL_TOKEN_MIN - 1, RL_TOKEN_MAX + 1, 0};
    for (size_t k = 0; k < 3; k++) {
        fake_init(&F, 3);
        o.token_len = bad_lens[k];
        CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ERROR);
        CHECK_EQ(F.ncalls, 0);
    }
}

/* a failed attempt releases with the caller's token; is_held then finds it */
static void test_acquire_caller_token_release_and_held(void)
{
    rl_lock_info info;
    rl_opts o = opts0;
    const char tok[] = "laravel-owner-token-0001";
    o.token = tok;
    o.token_len = strlen(tok);
    fake_init(&F, 3);
    fake_set_all(F.set, 2, FO_NIL, 0, 0);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_CONFLICT);
    CHECK_EQ(F.calls[1].kind, 'R');
    /* the cleanup names the attempt's nonce: EVALSHA sha 2 key key\0a token id nonce */
    CHECK_STR(F.calls[1].argv[2], "2");
    CHECK_STR(F.calls[1].argv[5], tok);
    CHECK_STR(F.calls[1].argv[7], F.calls[0].argv[8]);

    fake_init(&F, 3);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ACQUIRED);
    for (int i = 0; i < 3; i++) get_answers(i, tok);
    CHECK_OUT(rl_is_held(&F.ctx, "k", 1, info.token, info.token_len, NULL), RL_YES);
    CHECK_OUT(rl_release(&F.ctx, "k", 1, info.token, NULL), RL_RELEASED);
    CHECK_STR(last()->argv[4], tok);
}

/* A failed attempt releases on the nodes where our SET may have landed (OK,
 * timed out), never on those that answered nil. With a caller's token the key
 * on a node that timed out may be our own earlier lock (lock() twice with one
 * token): its cleanup is the nonce-checked script (rl_script_release with the
 * attempt's key), which deletes only what this attempt set. */
static void test_failed_attempt_spares_nil_nodes(void)
{
    rl_lock_info info;
    rl_opts o = opts0;
    const char tok[] = "same-owner-token-0001";
    o.token = tok;
    o.token_len = strlen(tok);
    fake_init(&F, 5);
    /* nodes 0, 1 set; 2, 3 refuse (they hold our earlier lock); 4 times out */
    F.set[2].kind = FO_NIL;
    F.set[3].kind = FO_NIL;
    F.set[4].kind = FO_FAIL;
    F.set[4].err = RL_E_TIMEOUT;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_CONFLICT);
    REQUIRE(F.ncalls == 2);
    CHECK_EQ(F.calls[1].kind, 'R');
    CHECK(F.calls[1].nowait);
    CHECK_STR(F.calls[1].argv[7], F.calls[0].argv[8]); /* nonce-checked */
    CHECK_STR(F.node_log[0], "AR");
    CHECK_STR(F.node_log[1], "AR");
    CHECK_STR(F.node_log[2], "A");
    CHECK_STR(F.node_log[3], "A");
    CHECK_STR(F.node_log[4], "AR");
    /* a failure is decided at quorum with a caller's token too: the node not
     * awaited gets the nonce-checked cleanup */
    fake_init(&F, 3);
    fake_set_all(F.set, 3, FO_NIL, 0, 0);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_CONFLICT);
    CHECK_EQ(delivered(&F.calls[0]), 2);
    CHECK_STR(F.node_log[2], "AR");
    /* ... success too */
    fake_init(&F, 5);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &o, &info, NULL), RL_ACQUIRED);
    CHECK_EQ(delivered(&F.calls[0]), 3);
    /* each attempt has a nonce of its own: one attempt's cleanup never
     * deletes what a later attempt set */
    rl_opts o2 = o;
    o2.retry_count = 1;
    fake_init(&F, 3);
    fake_set_all(F.set, 3, FO_NIL, 0, 0);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &o2, &info, NULL), RL_CONFLICT);
    REQUIRE(F.ncalls == 4);
    CHECK(strcmp(F.calls[0].argv[8], F.calls[2].argv[8]) != 0);
    CHECK_STR(F.calls[3].argv[7], F.calls[2].argv[8]);
    /* a random token decides a failure at quorum; the release goes to the
     * node whose answer was not awaited (its SET may still land), not to the
     * two that answered nil (nothing of ours there) */
    fake_init(&F, 3);
    fake_set_all(F.set, 3, FO_NIL, 0, 0);
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &opts0, &info, NULL), RL_CONFLICT);
    CHECK_EQ(delivered(&F.calls[0]), 2);
    CHECK_STR(F.node_log[0], "S");
    CHECK_STR(F.node_log[1], "S");
    CHECK_STR(F.node_log[2], "SR");
    /* ... and none at all when every node answered nil before the decision */
    fake_init(&F, 1);
    F.set[0].kind = FO_NIL;
    CHECK_OUT(rl_acquire(&F.ctx, "k", 1, 1000, &opts0, &info, NULL), RL_CONFLICT);
    CHECK_EQ(F.ncalls, 1);
    CHECK_STR(F.node_log[0], "S");
}

static const test_case tests[] = {
    {"is_held_quorum_yes", test_is_held_quorum_yes},
    {"is_held_other_token_no", test_is_held_other_token_no},
    {"is_held_nil_everywhere_no", test_is_held_nil_everywhere_no},
    {"is_held_no_quorum", test_is_held_no_quorum},
    {"is_held_quorum_answered_minority_holds", test_is_held_quorum_answered_minority_holds},
    {"is_held_error_reply_counts_failed", test_is_held_error_reply_counts_failed},
    {"is_held_compares_whole_token", test_is_held_compares_whole_token},
    {"is_held_bad_args", test_is_held_bad_args},
    {"is_held_same_server", test_is_held_same_server},
    {"force_release_deletes_everywhere", test_force_release_deletes_everywhere},
    {"force_release_no_quorum", test_force_release_no_quorum},
    {"force_release_bad_args", test_force_release_bad_args},
    {"acquire_caller_token", test_acquire_caller_token},
    {"acquire_caller_token_release_and_held", test_acquire_caller_token_release_and_held},
    {"failed_attempt_spares_nil_nodes", test_failed_attempt_spares_nil_nodes},
};

int main(int argc, char **argv)
{
    test_counts c = run_tests(tests, N_TESTS(tests), argc, argv, NULL, NULL);
    return tests_summary(c);
}
