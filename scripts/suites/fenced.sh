#!/usr/bin/env bash
# fenced.sh -- the fenced-storage torture test (short: client pauses past the TTL, with and
# without the storage check).
. "$(dirname "$0")/lib.sh"
need_so
nodes_up
REDLOCK_SO="$so" bash tests/harness/torture/fenced.sh --short >"$log_dir/fenced.log" 2>&1; rc=$?
grep -E '^(mode|acquisitions|pauses|stale writes|lost updates|fence order|  FAIL|fenced:)' "$log_dir/fenced.log" | tail -n 25 | sed "s/^/    | /"
passfail_count fenced-torture "$log_dir/fenced.log" "$rc"
suite_end
