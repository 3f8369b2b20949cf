/* unit_tests.c -- the runner of build/unit_tests, the C unit tests of the
 * RedLock core: one suite per file, named after the source file it tests
 * (tests/unit_tests.h), over the fake transport and clock (tests/fake.h) or
 * against real redis-server processes started (and stopped, by pid) here
 * (tests/nodes_fixture.c):
 *   lock_tests.c     lock/: the algorithm; key lists on real nodes
 *   restart_tests.c  the restart-safe quorum (rl_vote_mask, INFO, clock steps)
 *   permit_tests.c   semaphores' permits, fake and real nodes
 *   uri_tests.c      rl_uri.c: URIs, a node's settings and secrets
 *   stats_tests.c    lock/rl_stats.c: the no-quorum message, histograms, error names
 *   resp_tests.c     rl_resp.c's encoding, the reply reader's fast path
 *   sys_tests.c      rl_sys.c: tokens, the clock, the fork generation
 *   scripts_tests.c  lock/rl_scripts_gen.c: every script's SHA1, pinned
 *   conn_tests.c     net/rl_conn.c, rl_dial.c, rl_read.c, rl_node.c: one node's connection, on real nodes
 *   fanout_tests.c   rl_fanout.c: the fan-out over real nodes, stalls, faults
 *   subs_tests.c     rl_wait.c: subscriber connections, wake on release
 *   tls_tests.c      rl_tls.c: TLS nodes
 *
 * Usage: build/unit_tests [substring]   (from redlock_core/) runs the tests,
 * of every suite, whose name contains it: `build/unit_tests net_fork` runs one.
 * Prints PASS/FAIL per test and ends with one "N passed, N failed" line. */
#include "tests/nodes_fixture.h"
#include "tests/unit_tests.h"

#include <signal.h>

/* in the order they run */
static const test_suite *const suites[] = {&restart_suite, &lock_suite,   &uri_suite,     &stats_suite,
                                           &resp_suite,    &sys_suite,    &scripts_suite, &permit_suite,
                                           &conn_suite,    &fanout_suite, &subs_suite,    &tls_suite};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    net_setup_signals();
    test_counts c = {0, 0};
    for (size_t s = 0; s < N_TESTS(suites); s++) {
        test_counts one = run_tests(suites[s]->tests, suites[s]->n, argc, argv, NULL, NULL);
        c.passed += one.passed;
        c.failed += one.failed;
    }
    nodes_stop_all();
    return tests_summary(c);
}
