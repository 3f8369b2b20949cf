#!/usr/bin/env bash
# phpt.sh -- the .phpt suite (run-tests.php) against modules/redlock.so, on its own nodes.
#   bash scripts/suites/phpt.sh [run-tests.php args or tests...]   (default: tests/)
. "$(dirname "$0")/lib.sh"
need_so
run_phpt_sharded phpt scripts/run-phpt.sh "$so" "$phpt_shards" 0 -- "$@"
suite_end
