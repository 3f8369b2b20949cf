#!/usr/bin/env bash
# cli.sh -- the redlock(1) command-line program (tests/harness/cli/run.sh: the real binary against the nodes).
. "$(dirname "$0")/lib.sh"
need_so
nodes_up
REDLOCK_SO="$so" bash tests/harness/cli/run.sh >"$log_dir/cli.log" 2>&1; rc=$?
grep -E '^(FAIL|SKIP)' "$log_dir/cli.log" | head -n 30 | sed "s/^/    | /"
passfail_count cli "$log_dir/cli.log" "$rc"
suite_end
