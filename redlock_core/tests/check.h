/* check.h -- the checks shared by the core's C test programs: a failed check
 * prints file:line and counts against the current test; REQUIRE bails out. */
#ifndef RL_TEST_CHECK_H
#define RL_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rl.h"

static int t_fail; /* failed checks in the current test */

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

#define CHECK(c)                                                          \
    do {                                                                  \
        if (!(c)) check_failf(__FILE__, __LINE__, "check failed: %s", #c); \
    } while (0)

#define CHECK_EQ(a, b)                                                                           \
    do {                                                                                         \
        long long a_ = (long long)(a), b_ = (long long)(b);                                      \
        if (a_ != b_) check_failf(__FILE__, __LINE__, "%s == %s (%lld != %lld)", #a, #b, a_, b_); \
    } while (0)

#define CHECK_STR(a, b)                                                                      \
    do {                                                                                     \
        const char *a_ = (a), *b_ = (b);                                                     \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                               \
            check_failf(__FILE__, __LINE__, "%s == %s (\"%s\" != \"%s\")", #a, #b,           \
                        a_ ? a_ : "(null)", b_ ? b_ : "(null)");                             \
    } while (0)

/* a guard that bails out of the test function */
#define REQUIRE(c)                                                          \
    do {                                                                    \
        if (!(c)) {                                                         \
            check_failf(__FILE__, __LINE__, "required: %s", #c);            \
            return;                                                         \
        }                                                                   \
    } while (0)

static inline const char *outcome_name(int o)
{
    static const char *names[] = {"ACQUIRED", "CONFLICT", "NO_QUORUM", "RELEASED", "EXTENDED",
                                  "LOST",     "YES",      "NO",        "ERROR",    "SAME_SERVER"};
    return o >= 0 && o <= RL_SAME_SERVER ? names[o] : "?";
}

#define CHECK_OUT(a, b)                                                                           \
    do {                                                                                          \
        int a_ = (a), b_ = (b);                                                                   \
        if (a_ != b_)                                                                             \
            check_failf(__FILE__, __LINE__, "%s: got %s, want %s", #a, outcome_name(a_),          \
                        outcome_name(b_));                                                        \
    } while (0)

#endif
