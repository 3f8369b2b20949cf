/* check.h -- the checks shared by the core's C test programs: a failed check
 * prints file:line and counts against the current test; REQUIRE bails out. */
#ifndef RL_TEST_CHECK_H
#define RL_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rl.h"

/* failed checks in the current test; one variable for every file of a program
 * (weak: each file that includes this defines it, the linker keeps one), so
 * a helper in another file (tests/nodes_fixture.c) counts against the test */
__attribute__((weak)) int t_fail;

static inline void check_failf(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    t_fail++;
    if (t_fail > 25) return;
    fprintf(stdout, "    %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

#define CHECK(c)                                                           \
    do {                                                                   \
        if (!(c)) check_failf(__FILE__, __LINE__, "check failed: %s", #c); \
    } while (0)

#define CHECK_EQ(a, b)                                                                            \
    do {                                                                                          \
        long long a_ = (long long)(a), b_ = (long long)(b);                                       \
        if (a_ != b_) check_failf(__FILE__, __LINE__, "%s == %s (%lld != %lld)", #a, #b, a_, b_); \
    } while (0)

#define CHECK_STR(a, b)                                                                                \
    do {                                                                                               \
        const char *a_ = (a), *b_ = (b);                                                               \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                                         \
            check_failf(__FILE__, __LINE__, "%s == %s (\"%s\" != \"%s\")", #a, #b, a_ ? a_ : "(null)", \
                        b_ ? b_ : "(null)");                                                           \
    } while (0)

/* a guard that bails out of the test function */
#define REQUIRE(c)                                               \
    do {                                                         \
        if (!(c)) {                                              \
            check_failf(__FILE__, __LINE__, "required: %s", #c); \
            return;                                              \
        }                                                        \
    } while (0)

static inline const char *outcome_name(int o)
{
    static const char *names[] = {"ACQUIRED", "CONFLICT", "NO_QUORUM", "RELEASED",    "EXTENDED", "LOST",
                                  "YES",      "NO",       "ERROR",     "SAME_SERVER", "LIMIT"};
    return o >= 0 && o <= RL_LIMIT ? names[o] : "?";
}

#define CHECK_OUT(a, b)                                                                                               \
    do {                                                                                                              \
        int a_ = (a), b_ = (b);                                                                                       \
        if (a_ != b_) check_failf(__FILE__, __LINE__, "%s: got %s, want %s", #a, outcome_name(a_), outcome_name(b_)); \
    } while (0)

/* a lock token: RL_TOKEN_LEN lowercase hex digits */
static inline int is_lower_hex_token(const char *t)
{
    if (strlen(t) != RL_TOKEN_LEN) return 0;
    for (int i = 0; i < RL_TOKEN_LEN; i++)
        if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f'))) return 0;
    return 1;
}

/* ---- the runner every test program's main() calls ---- */
typedef struct test_case {
    const char *name;
    void (*fn)(void);
} test_case;

#define N_TESTS(a) (sizeof(a) / sizeof((a)[0]))

typedef struct test_counts {
    int passed, failed;
} test_counts;

/* Runs the tests whose name contains argv[1] (all without it), printing
 * "PASS|FAIL <prefix><name>" for each; after_each (if any) runs after every
 * test, e.g. to resume a node a failed test left paused. */
static inline test_counts run_tests(const test_case *tests, size_t n, int argc, char **argv, const char *prefix,
                                    void (*after_each)(void))
{
    test_counts c = {0, 0};
    const char *filter = argc > 1 ? argv[1] : NULL;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t i = 0; i < n; i++) {
        if (filter && !strstr(tests[i].name, filter)) continue;
        t_fail = 0;
        tests[i].fn();
        if (after_each) after_each();
        printf("%s %s%s\n", t_fail ? "FAIL" : "PASS", prefix ? prefix : "", tests[i].name);
        if (t_fail)
            c.failed++;
        else
            c.passed++;
    }
    return c;
}

/* The summary line run_all.sh adds up; the exit status of main(). */
static inline int tests_summary(test_counts c)
{
    printf("%d passed, %d failed\n", c.passed, c.failed);
    return c.failed ? 1 : 0;
}

#endif
