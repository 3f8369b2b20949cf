#!/usr/bin/env bash
# model.sh -- model checks of the fencing protocol, the semaphore rule, the fair queue and the core
# with restarts (randomized, fixed seed, bounded): one "N passed, N failed" line per model, summed.
. "$(dirname "$0")/lib.sh"
make -s -C redlock_core model >"$log_dir/model.log" 2>&1; rc=$?
sed -n '/^correct .*nodes:/,/^restart-any-raise .*5 nodes:/p' "$log_dir/model.log" | sed "s/^/    | /"
grep -E '^(slots|counter|any-slot) +[0-9]+ counterexamples' "$log_dir/model.log" | sed "s/^/    | /"
grep -E '^(quorum-max|no-raise|minority-ticket|local-ticket|drop-on-set|outlier-short) ' "$log_dir/model.log" | sed "s/^/    | /"
grep -E '^(core|late-extend|fresh|no-check|grace-1s) +([0-9]+ counterexamples|scripted)' "$log_dir/model.log" | sed "s/^/    | /"
passfail_count fence-model "$log_dir/model.log" "$rc" 0 sum
suite_end
