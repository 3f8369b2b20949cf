# shellcheck shell=bash
# lib.sh -- what every suite of scripts/suites/ shares (sourced; scripts/test.sh runs the suites).
#
# A suite script runs alone (`bash scripts/suites/phpt.sh`) or under scripts/test.sh. It prints its
# details (indented "    | " lines), one "---- PART: N passed, N failed, N skipped" line per part it
# counts (a build, a test run, a check), and ends with exactly one line
#     SUITE: N passed, N failed, N skipped
# the sum of its parts; it exits 1 when anything failed. scripts/test.sh reads only that last line.
#
# Rules (count): a part that ran nothing, or skipped everything it should run, fails. With CI=true
# nothing skips but what the suite names as expected (count's 5th argument: e.g. the no-TLS build's
# TLS tests, the checks that need ../shared when ../shared is absent).
#
# Environment:
#   REDLOCK_SO            the extension to test (default: modules/redlock.so, built when absent)
#   REDLOCK_SUITE_LOGS    where the suite writes its logs (scripts/test.sh gives each suite its
#                         own; default: a new /tmp/redlock-SUITE.XXXXXX)
#   REDLOCK_SHARED_DIR    ../shared when it is elsewhere
#   REDLOCK_PHPT_SHARDS   run-tests.php processes per .phpt suite, side by side (default 1: see scripts/test.sh)
# Each suite that needs nodes starts its own set ($REDLOCK_SUITE_LOGS/nodes, stopped at exit), so
# suites can run side by side; a suite that runs .phpt files runs them in its own copy of the tree
# (run-tests.php writes its files next to the tests).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$(pwd)
suite=$(basename "$0" .sh)
export NO_INTERACTION=1 REPORT_EXIT_STATUS=1
unset TEST_PHP_EXECUTABLE # the suites choose theirs (php, or scripts/asan-php.sh)
ci=0; [ "${CI:-}" = true ] && ci=1
shared_dir=${REDLOCK_SHARED_DIR:-$root/../shared}
log_dir=${REDLOCK_SUITE_LOGS:-$(mktemp -d "/tmp/redlock-$suite.XXXXXX")}
mkdir -p "$log_dir"
so=${REDLOCK_SO:-$root/modules/redlock.so}
# how many run-tests.php processes a .phpt suite runs side by side (run_phpt_sharded)
phpt_shards=${REDLOCK_PHPT_SHARDS:-1}
passed=0 failed=0 skipped=0
failures=() fail_names=""

# exit hooks (nodes to stop, background jobs to end), run in reverse order
at_exit_cmds=()
at_exit() { at_exit_cmds+=("$*"); }
run_at_exit() { local i; for ((i = ${#at_exit_cmds[@]} - 1; i >= 0; i--)); do eval "${at_exit_cmds[i]}"; done; }
trap run_at_exit EXIT
trap 'exit 130' INT TERM

# the skips to expect from a part that needs ../shared: all of them when it is absent
shared_skips() { if [ -d "$shared_dir" ]; then echo 0; else echo "$1"; fi; }

count() { # part passed failed skipped [skips expected]
  local f=$3 why=""
  if [ "$2" -eq 0 ] && [ "$3" -eq 0 ] && [ "$4" -eq 0 ]; then
    f=1 why="ran nothing"
  elif [ "$2" -eq 0 ] && [ "$3" -eq 0 ] && [ "$4" -gt "${5:-0}" ]; then
    f=1 why="skipped everything it should run"
  elif [ "$ci" = 1 ] && [ "$4" -gt "${5:-0}" ]; then
    f=$((f + 1)) why="$4 skipped, ${5:-0} expected (CI=true: nothing else may skip)"
  fi
  passed=$((passed + $2)); failed=$((failed + f)); skipped=$((skipped + $4))
  if [ -n "$why" ]; then failures+=("$1: $why"); elif [ "$f" -gt 0 ]; then failures+=("$1: $f failed${fail_names:+ ($fail_names)}"); fi
  fail_names=""
  printf -- '---- %s: %d passed, %d failed, %d skipped%s\n' "$1" "$2" "$f" "$4" "${why:+ ($why)}"
}
# the suite's closing line (and its exit status)
suite_end() {
  if [ ${#failures[@]} -gt 0 ]; then printf 'failed: %s\n' "${failures[@]}"; fi
  echo "logs: $log_dir"
  echo "$suite: $passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ]
}
# a whole step that either works or not (a build, a script)
step() { # part command...
  local name=$1; shift
  if "$@" >"$log_dir/$name.log" 2>&1; then count "$name" 1 0 0; else
    tail -n 30 "$log_dir/$name.log" | sed "s/^/    | /"; count "$name" 0 1 0; return 1; fi
}
# run-tests.php's result lines, without the progress line's \r and colours
phpt_results() { tr '\r' '\n' <"$1" | sed 's/\x1b\[[0-9;]*m//g' | grep -E "^($2)" || true; }
# parse run-tests.php's summary
phpt_count() { # part logfile rc [skips expected]
  local p f s w b l
  p=$(sed -n 's/^Tests passed *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  f=$(sed -n 's/^Tests failed *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  s=$(sed -n 's/^Tests skipped *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  w=$(sed -n 's/^Tests warned *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  b=$(sed -n 's/^Tests borked *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  l=$(sed -n 's/^Tests leaked *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)   # (run-tests.php -m)
  p=${p:-0} f=${f:-0} s=${s:-0} w=${w:-0} b=${b:-0} l=${l:-0}
  f=$((f + w + b + l))
  if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi          # runner failed without saying why
  phpt_results "$2" 'FAIL|LEAK|BORK|WARN' | head -n 40 | sed "s/^/    | /"
  # the failed tests' files, for the closing "failed:" lines (the end of a CI log is what is kept)
  fail_names=$(phpt_results "$2" 'FAIL|LEAK|BORK|WARN' |
    grep -oE '\[tests/[^]]*\.phpt\]' | tr -d '[]' | sort -u | head -n 8 | paste -sd' ' -)
  phpt_attempts "$2" "${REDLOCK_PHPT_OUTDIR:-}"   # what each failed attempt printed
  [ "$s" -gt "${4:-0}" ] && { phpt_results "$2" SKIP | head -n 20 | sed "s/^/    | /"; }
  count "$1" "$p" "$f" "$s" "${4:-0}"
}
# a script that ends with "<name>: N passed, N failed, N skipped"
summary_count() { # part logfile rc [skips expected]
  local line sp sf ss
  line=$(grep -E ': [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$2" | tail -n1)
  sp=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p'); sp=${sp:-0}
  sf=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p'); sf=${sf:-0}
  ss=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped$/\1/p'); ss=${ss:-0}
  [ "$3" -ne 0 ] && [ "$sf" -eq 0 ] && sf=1
  count "$1" "$sp" "$sf" "$ss" "${4:-0}"
}
# a program that ends with "N passed, N failed" (and prints "SKIP ..." for what it skipped);
# with "sum", every such line counts (one per model, one per test program)
passfail_count() { # part logfile rc [skips expected] [sum]
  local p f s pick="tail -n1"
  [ "${5:-}" = sum ] && pick=cat
  p=$(sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' "$2" | $pick | awk '{s += $1} END {print s + 0}')
  f=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$2" | $pick | awk '{s += $1} END {print s + 0}')
  s=$(grep -c '^SKIP' "$2")
  [ "$3" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  count "$1" "$p" "$f" "$s" "${4:-0}"
}
# shellcheck source=../../tests/phpunit_count.sh
. "$root/tests/phpunit_count.sh"
# shellcheck source=../../tests/phpt_attempts.sh
. "$root/tests/phpt_attempts.sh"

# the extension: built when the suite runs alone and it is absent
need_so() {
  [ -f "$so" ] && return 0
  [ "$so" = "$root/modules/redlock.so" ] || { echo "$suite: $so is absent"; count build 0 1 0; suite_end; exit 1; }
  step build-extension bash scripts/build.sh || { suite_end; exit 1; }
}
# a private node set (5 lock nodes, the auxiliary node, 3 TLS nodes), its env exported, stopped at exit
nodes_up() { # [dir]
  at_exit "REDLOCK_NODES_DIR='${1:-$log_dir/nodes}' bash '$root/tests/nodes.sh' stop >/dev/null 2>&1"
  if ! nodes_start "${1:-$log_dir/nodes}" "$log_dir/nodes.log"; then
    tail -n 10 "$log_dir/nodes.log" | sed "s/^/    | /"; count test-nodes 0 1 0; suite_end; exit 1
  fi
}
# the node set itself (5 lock nodes, the auxiliary node, 3 TLS nodes) in DIR, its env exported;
# its output in LOG; fails when a node did not start
nodes_start() { # dir log
  export REDLOCK_NODES_DIR=$1
  { bash tests/nodes.sh start 5 && bash tests/nodes.sh start-tls 3; } >"$2" 2>&1 || return 1
  set -a; . "$REDLOCK_NODES_DIR/env"; set +a
}
# a copy of the git-tracked tree (what a clone has; no build artefacts of this checkout)
tree_copy() { # dest
  rm -rf "$1"; mkdir -p "$1"
  if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$root" ls-files -z | (cd "$root" && xargs -0 cp --parents -t "$1" 2>/dev/null)
  else
    cp -a "$root/." "$1/"
  fi
  [ -f "$1/config.m4" ]
}
# the .phpt suite (or the given tests) through RUNNER (scripts/run-phpt.sh or a wrapper of it),
# in a private copy of the tree, its attempts' outputs in $log_dir/PART.out
run_phpt() { # part runner so [skips expected] [-- extra run-tests args...]
  local part=$1 runner=$2 lso=$3 exp=${4:-0} rc; shift 3; [ $# -gt 0 ] && shift
  [ "${1:-}" = -- ] && shift
  local tree=$log_dir/tree
  [ -f "$tree/config.m4" ] || tree_copy "$tree"
  export REDLOCK_PHPT_OUTDIR="$log_dir/$part.out"
  rm -rf "$REDLOCK_PHPT_OUTDIR"; mkdir -p "$REDLOCK_PHPT_OUTDIR"
  bash "$tree/$runner" "$lso" "$@" >"$log_dir/$part.log" 2>&1; rc=$?
  phpt_count "$part" "$log_dir/$part.log" $rc "$exp"
}
# The same in SHARDS run-tests.php processes side by side, each with a node set of its own, taking
# the test folders one by one from one queue (the folders with the most tests first): the .phpt
# suites mostly wait on timers and replies, so shards cut their wall time, not their CPU. One folder
# is one run-tests.php call; their summaries are summed into the part's log. With test paths among
# the extra arguments (a suite run by hand on some tests) it is run_phpt on this suite's nodes.
run_phpt_sharded() { # part runner so shards [skips expected] [-- extra run-tests args...]
  local part=$1 runner=$2 lso=$3 shards=$4 exp=${5:-0} a k rc=0 pids=(); shift 4; [ $# -gt 0 ] && shift
  [ "${1:-}" = -- ] && shift
  for a in "$@"; do [ -e "$a" ] && shards=1; done
  if [ "$shards" -le 1 ]; then nodes_up; run_phpt "$part" "$runner" "$lso" "$exp" -- "$@"; return; fi
  local tree=$log_dir/tree queue=$log_dir/$part.queue
  [ -f "$tree/config.m4" ] || tree_copy "$tree"
  export REDLOCK_PHPT_OUTDIR="$log_dir/$part.out"
  rm -rf "$REDLOCK_PHPT_OUTDIR"; mkdir -p "$REDLOCK_PHPT_OUTDIR"
  (cd "$tree" && find tests -mindepth 2 -name '*.phpt' | cut -d/ -f1-2 | sort | uniq -c | sort -k1,1nr -k2,2 |
    awk '{ print $2 }') >"$queue"
  for k in $(seq 1 "$shards"); do
    at_exit "REDLOCK_NODES_DIR='$log_dir/nodes-$k' bash '$root/tests/nodes.sh' stop >/dev/null 2>&1"
    phpt_shard "$k" "$queue" "$tree/$runner" "$lso" "$@" >"$log_dir/$part.$k.log" 2>&1 &
    pids+=($!)
  done
  for k in "${!pids[@]}"; do wait "${pids[k]}" || rc=1; done
  # one log: the shards' in turn, then the sums of their summaries (what phpt_count reads)
  cat "$log_dir/$part".[0-9]*.log >"$log_dir/$part.log"
  awk '/^Tests (skipped|warned|failed|leaked|passed|borked) *:/ { n[$2] += $4 }
    END { for (k in n) printf "Tests %-9s: %4d (sum of the shards)\n", k, n[k] }' "$log_dir/$part".[0-9]*.log \
    | sort >>"$log_dir/$part.log"
  phpt_count "$part" "$log_dir/$part.log" $rc "$exp"
}
# one shard of run_phpt_sharded: its nodes, then folders from the queue until it is empty
phpt_shard() { # k queue runner so [extra run-tests args...]
  local k=$1 queue=$2 runner=$3 lso=$4 d rc=0; shift 4
  nodes_start "$log_dir/nodes-$k" "$log_dir/nodes-$k.log" ||
    { echo "shard $k: its nodes did not start ($log_dir/nodes-$k.log)"; return 1; }
  while d=$(flock "$queue.lock" sh -c 'd=$(head -n1 "$1") && [ -n "$d" ] && sed -i 1d "$1" && echo "$d"' _ "$queue"); do
    echo "== shard $k: $d"
    bash "$runner" "$lso" "$@" "$d" || rc=1
  done
  bash tests/nodes.sh stop >/dev/null 2>&1
  return $rc
}
# tests that say "skip ... under valgrind[/ASan]" in their SKIPIF: expected there (at most that many)
sanitizer_skips() { grep -rlE "die\('skip .*under valgrind" "$root/tests" --include='*.phpt' | wc -l; }
