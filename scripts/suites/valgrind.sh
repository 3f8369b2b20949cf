#!/usr/bin/env bash
# valgrind.sh -- the .phpt suite under valgrind (scripts/valgrind-phpt.sh: run-tests.php -m, a LEAK
# or FAIL on any report), on its own nodes. The tests that skip themselves under valgrind are the
# expected skips.
#   bash scripts/suites/valgrind.sh [run-tests.php args or tests...]   (default: tests/)
. "$(dirname "$0")/lib.sh"
need_so
# one run-tests.php process whatever REDLOCK_PHPT_SHARDS says: two traced shards beside the other
# lanes starved each other's timed tests (14 failed in a test-command run)
run_phpt_sharded phpt-valgrind scripts/valgrind-phpt.sh "$so" 1 "$(sanitizer_skips)" -- "$@"
suite_end
