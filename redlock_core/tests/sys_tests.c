/* sys_tests.c -- rl_sys.c: random tokens (and the acquire's token, over the
 * fake transport), the clock that counts through suspend, the fork
 * generation. A suite of build/unit_tests, which is linked with
 * -Wl,--wrap=clock_gettime for clock_boottime (redlock_core/Makefile). */
#define _GNU_SOURCE
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/unit_tests.h"
#include "tests/fake.h"

#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static fake F; /* large: static, reset by fake_init in each test */

static const rl_opts opts0 = {
    .retry_count = 0, .retry_delay_ms = 0, .retry_jitter_ms = 0, .wait_ms = 0, .drift_factor = 0.01};

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

static const test_case tests[] = {
    {"tokens", test_tokens},
    {"clock_boottime", test_clock_boottime},
    {"fork_generation", test_fork_generation},
};

const test_suite sys_suite = {tests, N_TESTS(tests)};
