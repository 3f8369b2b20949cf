#!/usr/bin/env bash
# test.sh -- THE test command (README, .ci/run): installs what is missing, builds, runs every suite
# of scripts/suites/ (or the ones named), ends with one summary line.
#
#   bash scripts/test.sh [--quick] [SUITE...]
#     --quick   only the fast suites (static, unit, metrics-table, model, phpt, cli)
#     SUITE     a suite of scripts/suites/ by name (phpt, valgrind, ...): only those
#
# Dependencies (scripts/deps.sh) and the build (scripts/suites/build.sh) come first, always. Then
# the suites run in lanes side by side on the machine's cores (the table below): most suites wait on
# sockets and timers, so lanes share the cores. Each suite has its own logs, its own Redis nodes and,
# when it runs .phpt files, its own copy of the tree (scripts/suites/lib.sh), so lanes never share
# nodes. Within a lane the suites run one after another. The CPU-heavy sanitizer suites (valgrind,
# then ASan) run in one lane: side by side with each other, or with the .phpt suites sharded
# (REDLOCK_PHPT_SHARDS, lib.sh run_phpt_sharded: 1 by default), the machine's load starved the timed
# tests under valgrind (4 to 14 of them failed in test-command runs on 2 cores). The platform matrix
# has a lane of its own: it builds a PHP from source on a cold cache (tests/harness/platforms/run.sh)
# and runs its Debian 13 and ZTS halves side by side. The valgrind lane is the longest.
#
# Each suite ends with "SUITE: N passed, N failed, N skipped"; this script prints every suite's
# output as it was (in the order of the table), the wall time of each, and ends with
#     N passed, N failed, N skipped
# the sum of every suite's line; it exits 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# lanes: one line each, its suites in order (the longest lanes first: they start first)
lanes=(
  "valgrind asan"
  "platforms"
  "phpt unit metrics-table model fuzz torture fenced cli bench"
  "static notls hiredis1 faultrun netfault fpm integrations packaging"
)
quick_suites="static unit metrics-table model phpt cli"

quick=0 want=""
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -*) echo "usage: $0 [--quick] [SUITE...]" >&2; exit 2 ;;
    *) [ -f "scripts/suites/$a.sh" ] && [ "$a" != lib ] || { echo "no suite $a (scripts/suites/)" >&2; exit 2; }
       want="$want $a" ;;
  esac
done
[ $quick = 1 ] && [ -z "$want" ] && want=" $quick_suites"
wanted() { [ -z "$want" ] || case " $want " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# a suite of scripts/suites/ in no lane of the table joins the last lane
for f in scripts/suites/*.sh; do
  s=$(basename "$f" .sh)
  case "$s" in lib | build) continue ;; esac
  case " ${lanes[*]} " in *" $s "*) ;; *) lanes[${#lanes[@]} - 1]+=" $s" ;; esac
done

log_dir=$(mktemp -d /tmp/redlock-test.XXXXXX)
t_start=$(date +%s)
lane_pids=()
cleanup() { local p; for p in "${lane_pids[@]}"; do kill -- "-$p" 2>/dev/null; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# one suite: its output in $log_dir/SUITE.out, its logs in $log_dir/SUITE/, its time in SUITE.time
run_suite() { # suite
  local s=$1 t0 rc TIMEFORMAT='%U %S'
  t0=$(date +%s)
  # (the CPU seconds it used, its processes' and their children's: what lanes share)
  { time REDLOCK_SUITE_LOGS="$log_dir/$s" REDLOCK_SO="$root/modules/redlock.so" \
    bash "scripts/suites/$s.sh" >"$log_dir/$s.out" 2>&1 </dev/null; } 2>"$log_dir/$s.cpu"; rc=$?
  echo $(( $(date +%s) - t0 )) >"$log_dir/$s.time"
  echo "$rc" >"$log_dir/$s.rc"
  printf '  [%4d s] %s (%d s)\n' $(( $(date +%s) - t_start )) "$(suite_line "$s")" "$(cat "$log_dir/$s.time")"
}
cpu_secs() { awk '{ printf "%d", $1 + $2 }' "$log_dir/$1.cpu" 2>/dev/null || echo '?'; }
# a suite's closing line, or a failure when it ended without one
suite_line() { # suite
  local l
  l=$(grep -E "^$1: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$" "$log_dir/$1.out" 2>/dev/null | tail -n1)
  echo "${l:-$1: 0 passed, 1 failed, 0 skipped}"
}

echo "==== dependencies ===="
bash scripts/deps.sh || { echo "dependency install failed"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
echo "==== build ===="
run_suite build
if [ "$(cat "$log_dir/build.rc")" != 0 ]; then
  cat "$log_dir/build.out"; echo "$(suite_line build | sed 's/^build: //')"; exit 1
fi

echo "==== suites (lanes side by side; each line when a suite ends) ===="
order=()
for lane in "${lanes[@]}"; do
  todo=()
  for s in $lane; do wanted "$s" && todo+=("$s") && order+=("$s"); done
  [ ${#todo[@]} -gt 0 ] || continue
  # (set -m: each lane is a process group of its own, ended as one on an interrupt)
  set -m
  ( for s in "${todo[@]}"; do run_suite "$s"; done ) &
  lane_pids+=($!)
  set +m
done
for p in "${lane_pids[@]}"; do wait "$p"; done
lane_pids=()

# every suite's output, in the order of the table, then the times and the total
passed=0 failed=0 skipped=0 failures=()
for s in build "${order[@]}"; do
  printf '\n==== %s (%s s) ====\n' "$s" "$(cat "$log_dir/$s.time" 2>/dev/null || echo '?')"
  cat "$log_dir/$s.out" 2>/dev/null
done
echo
echo "==== time per suite: wall s, CPU s (user + system) ===="
cpu_all=0
for s in build "${order[@]}"; do
  line=$(suite_line "$s")
  read -r p f k < <(echo "$line" | sed -E 's/^[^:]+: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/')
  # a suite that exited non-zero with nothing failed failed all the same
  [ "$(cat "$log_dir/$s.rc" 2>/dev/null || echo 1)" != 0 ] && [ "$f" -eq 0 ] && f=1
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + k))
  [ "$f" -gt 0 ] && failures+=("$s: $(grep '^failed: ' "$log_dir/$s.out" | sed 's/^failed: //' | paste -sd';' -)")
  printf '%6s %6s  %s\n' "$(cat "$log_dir/$s.time" 2>/dev/null || echo '?')" "$(cpu_secs "$s")" "$line"
  cpu_all=$((cpu_all + $(cpu_secs "$s" | tr -dc 0-9) + 0))
done
echo "CPU in all: $cpu_all s (on $(nproc) cores: at least $((cpu_all / $(nproc))) s of wall time)"
echo
if [ ${#failures[@]} -gt 0 ]; then printf 'failed: %s\n' "${failures[@]}"; fi
echo "logs: $log_dir (the whole run: $(( $(date +%s) - t_start )) s)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
