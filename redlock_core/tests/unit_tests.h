/* unit_tests.h -- the suites of build/unit_tests: one per file, named after
 * the source file it tests (uri_tests.c for rl_uri.c, ...). A file ends with
 * its table of tests and `const test_suite NAME_suite`; unit_tests.c runs
 * every suite's table, in the order of its list. */
#ifndef RL_UNIT_TESTS_H
#define RL_UNIT_TESTS_H

#include "tests/check.h"

typedef struct test_suite {
    const test_case *tests;
    size_t n;
} test_suite;

extern const test_suite restart_suite, lock_suite, uri_suite, stats_suite, resp_suite, sys_suite, scripts_suite,
    permit_suite, conn_suite, fanout_suite, subs_suite, tls_suite;

#endif
