#!/usr/bin/env bash
# torture.sh -- the mutual-exclusion torture test (short: private nodes, faults injected), and
# torture-can-fail: without the lock (TORTURE_NO_LOCK=1) its check must find lost updates or
# overlaps (a few seconds suffice, no faults needed).
. "$(dirname "$0")/lib.sh"
need_so
nodes_up
REDLOCK_SO="$so" bash tests/harness/torture/run.sh --short >"$log_dir/torture.log" 2>&1; rc=$?
tail -n 25 "$log_dir/torture.log" | sed "s/^/    | /"
passfail_count torture "$log_dir/torture.log" "$rc"
TORTURE_NO_LOCK=1 TORTURE_NO_FAULTS=1 REDLOCK_SO="$so" bash tests/harness/torture/run.sh --long 5 \
  >"$log_dir/torture-nolock.log" 2>&1; rc=$?
grep -E '^(mode|lost updates|overlaps|FAIL)' "$log_dir/torture-nolock.log" | sed "s/^/    | /"
if [ "$rc" -ne 0 ] && grep -qE '^FAIL: (lost updates|overlaps)' "$log_dir/torture-nolock.log"; then
  count torture-can-fail 1 0 0
else
  count torture-can-fail 0 1 0
fi
suite_end
