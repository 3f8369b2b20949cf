#!/usr/bin/env bash
# metrics-table.sh -- tests/metrics/table_test.sh: threads and processes under ThreadSanitizer and
# again under ASan+UBSan, SIGKILL/SIGSTOP mid-claim, a damaged table, per-user files.
. "$(dirname "$0")/lib.sh"
bash tests/metrics/table_test.sh >"$log_dir/metrics-table.log" 2>&1; rc=$?
grep -vE '^PASS' "$log_dir/metrics-table.log" | tail -n 15 | sed "s/^/    | /"
summary_count metrics-table "$log_dir/metrics-table.log" "$rc"
suite_end
