/* stats_tests.c -- lock/rl_stats.c: the message of a call without a quorum, the
 * latency histograms, the error names. A suite of build/unit_tests. */
#define _GNU_SOURCE
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/unit_tests.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

static void test_err_names(void)
{
    for (int e = RL_OK; e <= RL_E_NOMEM; e++) {
        const char *s = rl_err_name(e);
        CHECK(s && *s && strcmp(s, "unknown error") != 0);
    }
    CHECK_STR(rl_err_name(9999), "unknown error");
    CHECK_STR(rl_err_name(-1), "unknown error");
}

static const test_case tests[] = {
    {"quorum_message", test_quorum_message},
    {"latency_histogram", test_latency_histogram},
    {"err_names", test_err_names},
};

const test_suite stats_suite = {tests, N_TESTS(tests)};
