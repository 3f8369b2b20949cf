/* resp_tests.c -- RESP: a command's encoding (rl_resp.c), and the reply
 * reader's fast path for +status and :integer replies against hiredis's
 * parser (rl_read.c, tests/reply_diff.h). A suite of build/unit_tests. */
#define _GNU_SOURCE
#include "rl_conn_struct.h"
#include "rl_conn_test.h"
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/reply_diff.h"
#include "tests/unit_tests.h"

#include <hiredis/hiredis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const test_case tests[] = {
    {"resp_format", test_resp_format},
    {"reply_fast_path", test_reply_fast_path},
};

const test_suite resp_suite = {tests, N_TESTS(tests)};
