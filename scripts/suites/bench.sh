#!/usr/bin/env bash
# bench.sh -- the benchmark, short form (ratios printed, no pass/fail on time). Its table's rows: a
# row it could not run (a package missing: scripts/deps.sh installs what it needs) is a skip, a
# crashed implementation a failure.
. "$(dirname "$0")/lib.sh"
need_so
nodes_up
step bench-short bash bench/run.sh --short
grep -vE '^\s*$' "$log_dir/bench-short.log" | tail -n 45 | sed "s/^/    | /"
bench_rows=$(grep -E '^(lan|loopback|slow|down) ' "$log_dir/bench-short.log")
br_s=$(grep -c 'skipped: ' <<<"$bench_rows"); br_f=$(grep -c 'CRASHED' <<<"$bench_rows")
count bench-rows "$(($(grep -c . <<<"$bench_rows") - br_s - br_f))" "$br_f" "$br_s"
suite_end
