#!/usr/bin/env bash
# valgrind.sh -- the .phpt suite under valgrind (scripts/valgrind-phpt.sh: run-tests.php -m, a LEAK
# or FAIL on any report), on its own nodes. The tests that skip themselves under valgrind are the
# expected skips.
#   bash scripts/suites/valgrind.sh [run-tests.php args or tests...]   (default: tests/)
. "$(dirname "$0")/lib.sh"
need_so
run_phpt_sharded phpt-valgrind scripts/valgrind-phpt.sh "$so" "$phpt_shards" "$(sanitizer_skips)" -- "$@"
suite_end
