#!/usr/bin/env bash
# platforms.sh -- the platform matrix (tests/harness/platforms/run.sh): a Debian 13 chroot (PHP 8.4, Redis
# 8.0 / Valkey 8.1 nodes) and a ZTS debug PHP 8.2 (the .phpt suite, 8 threads over the embed SAPI).
# Its two halves run side by side, each a run.sh of its own: the chroot's entries (made with
# debootstrap and apt when the cache is cold: mostly network) and the ZTS entries (PHP built from
# source when the cache is cold: CPU, under nice 10 (REDLOCK_PLATFORMS_NICE, tests/harness/platforms/run.sh)
# so that the timing-bound suites of the other lanes keep their share of the cores). One count per
# entry: "platform ENTRY: N passed, ...".
#   bash scripts/suites/platforms.sh [entry...]   (default: every entry)
. "$(dirname "$0")/lib.sh"
if [ $# -gt 0 ]; then halves=("$*"); else halves=("trixie-redis trixie-valkey" "zts-phpt zts-threads"); fi
pids=() n=0
for h in "${halves[@]}"; do
  n=$((n + 1))
  # shellcheck disable=SC2086 # the entries are words
  bash tests/harness/platforms/run.sh $h >"$log_dir/platforms-$n.log" 2>&1 &
  pids+=($!)
done
at_exit 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done'
# the Debian 13 chroot has no promtool (Prometheus is not a platform under test): the promtool
# check skips there, saying so; it runs in this machine's .phpt suites
pl_promtool=$(grep -l "promtool not installed" tests/metrics/*.phpt 2>/dev/null | wc -l)
for i in $(seq 1 "$n"); do
  wait "${pids[i - 1]}"; rc=$?
  log=$log_dir/platforms-$i.log
  grep -E '^(platforms?: |    \| |FAIL)' "$log" | grep -vE ': [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' |
    tail -n 40 | sed "s/^/    | /"
  pl_n=0 pl_f=0
  while read -r pl_e pl_p pl_x pl_s; do
    pl_exp=0; case $pl_e in trixie-*) pl_exp=$pl_promtool ;; esac
    # the failed tests' names for the closing "failed:" line (the end of a CI log is what is kept):
    # the .phpt files of run-tests.php's summary and the C unit tests that printed FAIL, this half's
    [ "$pl_x" -gt 0 ] && fail_names=$(grep -oE '\[tests/[^]]*\.phpt\]|^    \| +FAIL:? [A-Za-z0-9_]+' "$log" |
      sed -E 's/^\[//; s/\]$//; s/^    \| +FAIL:? /unit:/' | sort -u | head -n 8 | paste -sd' ' -)
    count "platform-$pl_e" "$pl_p" "$pl_x" "$pl_s" "$pl_exp"; pl_n=$((pl_n + 1)); pl_f=$((pl_f + pl_x))
  done < <(sed -nE 's/^platform ([a-z0-9-]+): ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3 \4/p' "$log")
  if [ "$pl_n" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$pl_f" -eq 0 ]; }; then count "platforms-${halves[i - 1]// /+}" 0 1 0; fi
done
pids=()
suite_end
