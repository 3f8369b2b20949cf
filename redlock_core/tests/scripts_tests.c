/* scripts_tests.c -- the Lua scripts' table (rl_scripts.c): the SHAs' shape;
 * that each is the SHA1 of its script is checked against real redis by the
 * network tests (conn_tests.c, fanout_tests.c). A suite of build/unit_tests. */
#define _GNU_SOURCE
#include "rl_internal.h"
#include "tests/check.h"
#include "tests/unit_tests.h"

#include <string.h>

static void test_scripts_sha(void)
{
    /* the SHA1s are those of the scripts (redis would answer NOSCRIPT otherwise);
     * verified against real redis in the net tests: here only the shape */
    CHECK_EQ(strlen(rl_script_release_sha), 40);
    CHECK_EQ(strlen(rl_script_extend_sha), 40);
    CHECK(strstr(rl_script_release, "ARGV[1]") && strstr(rl_script_release, "del"));
    CHECK(strstr(rl_script_extend, "pexpire"));
}

static const test_case tests[] = {
    {"scripts_sha", test_scripts_sha},
};

const test_suite scripts_suite = {tests, N_TESTS(tests)};
