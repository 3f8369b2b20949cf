#!/usr/bin/env bash
# faultrun.sh -- the randomized fault run (tests/harness/faultrun --short: restarts, pauses, partitions,
# clock steps, deleted keys; restart_grace 'auto').
. "$(dirname "$0")/lib.sh"
need_so
nodes_up
REDLOCK_SO="$so" bash tests/harness/faultrun/run.sh --short >"$log_dir/faultrun.log" 2>&1; rc=$?
grep -vE '^    ' "$log_dir/faultrun.log" | tail -n 25 | sed "s/^/    | /"
summary_count faultrun "$log_dir/faultrun.log" "$rc"
suite_end
