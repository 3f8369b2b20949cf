#!/usr/bin/env bash
# netfault.sh -- real network faults (tests/harness/netfault: nodes in network namespaces, silent
# partitions, loss; root only). It skips (saying why) only where namespaces cannot be made; under
# CI=true that skip is a failure like any other: CI runs as root with nftables installed.
. "$(dirname "$0")/lib.sh"
need_so
nodes_up
REDLOCK_SO="$so" bash tests/harness/netfault/run.sh >"$log_dir/netfault.log" 2>&1; rc=$?
grep -E '^(PASS|FAIL|SKIP) ' "$log_dir/netfault.log" | sed "s/^/    | /"
summary_count netfault "$log_dir/netfault.log" "$rc"
suite_end
