#!/usr/bin/env bash
# test.sh -- THE test command (README, .ci/run): installs what is missing, builds, starts
# real Redis nodes on free loopback ports, runs every suite, ends with one summary line.
#   --quick   skip the slow suites (valgrind, ASan, fuzzing, FPM, framework adapters, packaging, bench)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
quick=0
[ "${1:-}" = "--quick" ] && quick=1

export NO_INTERACTION=1 REPORT_EXIT_STATUS=1
unset TEST_PHP_EXECUTABLE # the suites choose theirs (php, or scripts/asan-php.sh)
passed=0 failed=0 skipped=0
failures=()

log_dir=$(mktemp -d /tmp/redlock-test.XXXXXX)
export REDLOCK_NODES_DIR="$log_dir/nodes"
cleanup() { bash tests/nodes.sh stop >/dev/null 2>&1 || true; }
trap cleanup EXIT

section() { printf '\n==== %s ====\n' "$*"; }
count() { # suite passed failed skipped
  passed=$((passed + $2)); failed=$((failed + $3)); skipped=$((skipped + $4))
  [ "$3" -gt 0 ] && failures+=("$1: $3 failed")
  printf -- '---- %s: %d passed, %d failed, %d skipped\n' "$1" "$2" "$3" "$4"
}
# a whole step that either works or not (build, packaging, a script)
step() { # name command...
  local name=$1; shift
  if "$@" >"$log_dir/$name.log" 2>&1; then count "$name" 1 0 0; else
    tail -n 30 "$log_dir/$name.log" | sed "s/^/    | /"; count "$name" 0 1 0; return 1; fi
}
# parse run-tests.php's summary
phpt_count() { # suite logfile rc
  local p f s w b
  p=$(sed -n 's/^Tests passed *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  f=$(sed -n 's/^Tests failed *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  s=$(sed -n 's/^Tests skipped *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  w=$(sed -n 's/^Tests warned *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  b=$(sed -n 's/^Tests borked *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  p=${p:-0} f=${f:-0} s=${s:-0} w=${w:-0} b=${b:-0}
  f=$((f + w + b))
  if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then f=1; fi          # ran nothing: a failure
  if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi          # runner failed without saying why
  grep -E '^(FAIL|LEAK|BORK|WARN)' "$2" | head -n 40 || true
  count "$1" "$p" "$f" "$s"
}
# a script that ends with "<name>: N passed, N failed, N skipped"
summary_count() { # suite logfile rc
  local line sp sf ss
  line=$(grep -E ': [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$2" | tail -n1)
  sp=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p'); sp=${sp:-0}
  sf=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p'); sf=${sf:-0}
  ss=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped$/\1/p'); ss=${ss:-0}
  [ "$3" -ne 0 ] && [ "$sf" -eq 0 ] && sf=1
  [ "$sp" -eq 0 ] && [ "$sf" -eq 0 ] && [ "$ss" -eq 0 ] && sf=1
  count "$1" "$sp" "$sf" "$ss"
}
run_phpt() { # suite runner so [extra run-tests args...]: runner is scripts/run-phpt.sh or a wrapper of it
  local suite=$1 runner=$2 so=$3; shift 3
  local log="$log_dir/$suite.log"
  bash "$runner" "$so" "$@" >"$log" 2>&1
  phpt_count "$suite" "$log" $?
}

section "dependencies"
bash scripts/deps.sh || { echo "dependency install failed"; echo "0 passed, 1 failed"; exit 1; }

section "build (-Wall -Wextra, warnings are errors in the core)"
if ! step build-extension bash scripts/build.sh; then
  echo "$passed passed, $failed failed, $skipped skipped"; exit 1
fi
# no compiler warning in our own sources (a fresh clone compiles everything)
if grep -E "(redlock|rl_[a-z]+)\.c:[0-9]+:[0-9]+: warning" "$log_dir/build-extension.log" >"$log_dir/warnings.log"; then
  cat "$log_dir/warnings.log"; count compiler-warnings 0 1 0
else
  count compiler-warnings 1 0 0
fi
# redlock_arginfo.h is what gen_stub.php makes of redlock.stub.php (regenerated, compared)
step arginfo-regen bash scripts/gen-stub.sh --check
so="$root/modules/redlock.so"

section "C unit tests (redlock_core, ASan+UBSan)"
make -s -C redlock_core test >"$log_dir/unit.log" 2>&1; rc=$?
tail -n 15 "$log_dir/unit.log" | sed "s/^/    | /"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log_dir/unit.log" | tail -n1)
up=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p'); uf=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
up=${up:-0}; uf=${uf:-0}
[ "$rc" -ne 0 ] && [ "$uf" -eq 0 ] && uf=1
count c-unit "$up" "$uf" 0

section "metrics table (tests/metrics/table_test.sh: threads under ThreadSanitizer, processes, SIGKILL mid-claim)"
bash tests/metrics/table_test.sh >"$log_dir/metrics-table.log" 2>&1; rc=$?
grep -vE '^PASS' "$log_dir/metrics-table.log" | tail -n 15 | sed "s/^/    | /"
summary_count metrics-table "$log_dir/metrics-table.log" "$rc"

section "model check of the fencing protocol (randomized, fixed seed, bounded)"
make -s -C redlock_core model >"$log_dir/model.log" 2>&1; rc=$?
sed -n '/^correct .*nodes:/,/^incr-in-set+raise .*5 nodes:/p' "$log_dir/model.log" | sed "s/^/    | /"
mp=$(sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' "$log_dir/model.log" | tail -n1)
mf=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$log_dir/model.log" | tail -n1)
mp=${mp:-0}; mf=${mf:-0}; [ "$rc" -ne 0 ] && [ "$mf" -eq 0 ] && mf=1
[ "$mp" -eq 0 ] && [ "$mf" -eq 0 ] && mf=1
count fence-model "$mp" "$mf" 0

section "Redis test nodes"
if ! step test-nodes bash tests/nodes.sh start 5; then
  echo "$passed passed, $failed failed, $skipped skipped"; exit 1
fi
# TLS nodes and their certificates (tests/tls, FPM); a failure here fails tests/tls, not the rest
step test-nodes-tls bash tests/nodes.sh start-tls 3
set -a; . "$REDLOCK_NODES_DIR/env"; set +a

section ".phpt suite"
run_phpt phpt scripts/run-phpt.sh "$so"

section "redlock(1) command-line program (tests/cli/run.sh: the real binary against the nodes)"
REDLOCK_SO="$so" bash tests/cli/run.sh >"$log_dir/cli.log" 2>&1; rc=$?
grep -E '^(FAIL|SKIP)' "$log_dir/cli.log" | head -n 30 | sed "s/^/    | /"
cp=$(sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' "$log_dir/cli.log" | tail -n1)
cf=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$log_dir/cli.log" | tail -n1)
cp=${cp:-0}; cf=${cf:-0}; [ "$rc" -ne 0 ] && [ "$cf" -eq 0 ] && cf=1
[ "$cp" -eq 0 ] && [ "$cf" -eq 0 ] && cf=1
count cli "$cp" "$cf" 0

if [ $quick -eq 0 ]; then
  section ".phpt suite under valgrind (run-tests.php -m)"
  run_phpt phpt-valgrind scripts/valgrind-phpt.sh "$so"

  section ".phpt suite against an ASan+UBSan build (USE_ZEND_ALLOC=0)"
  asan_dir="$log_dir/asan-build"
  mkdir -p "$asan_dir"
  git ls-files -z | xargs -0 -I{} cp --parents {} "$asan_dir"/ 2>/dev/null
  if step build-asan bash "$asan_dir/scripts/build.sh" --asan; then
    # the tests' php preloads the sanitizer runtime (scripts/asan-php.sh says why)
    REDLOCK_ASAN_SHIM_DIR="$asan_dir" TEST_PHP_EXECUTABLE="$root/scripts/asan-php.sh" \
      run_phpt phpt-asan scripts/run-phpt.sh "$asan_dir/modules/redlock.so"
  fi

  section "build without TLS (--disable-redlock-tls): TLS nodes refused with a ValueError (tests/tls)"
  notls_dir="$log_dir/notls-build"
  mkdir -p "$notls_dir"
  git ls-files -z | xargs -0 -I{} cp --parents {} "$notls_dir"/ 2>/dev/null
  if REDLOCK_CONFIGURE_ARGS=--disable-redlock-tls step build-notls bash "$notls_dir/scripts/build.sh"; then
    run_phpt phpt-notls scripts/run-phpt.sh "$notls_dir/modules/redlock.so" tests/tls/
  fi

  if [ -f tests/hiredis1/run.sh ]; then
    section ".phpt suite and C unit tests against hiredis 1.4.1 (../shared/third_party; the OS has 0.14)"
    h1_dir="$log_dir/hiredis1"
    bash tests/hiredis1/run.sh --build-only "$h1_dir" >"$log_dir/hiredis1-build.log" 2>&1; rc=$?
    sed "s/^/    | /" "$log_dir/hiredis1-build.log" | tail -n 30
    if [ "$rc" -eq 77 ]; then
      count hiredis1 0 0 1                       # the tarball is absent: the reason is printed above
    else
      if [ -f "$h1_dir/core-unit.log" ]; then
        line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$h1_dir/core-unit.log" | tail -n1)
        up=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p'); uf=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
        up=${up:-0}; uf=${uf:-0}
        [ "$rc" -ne 0 ] && [ "$up" -eq 0 ] && [ "$uf" -eq 0 ] && uf=1
        count c-unit-hiredis1 "$up" "$uf" 0
      fi
      if [ "$rc" -eq 0 ]; then
        count hiredis1-build 1 0 0
        run_phpt phpt-hiredis1 scripts/run-phpt.sh "$h1_dir/ext/modules/redlock.so"
      else
        count hiredis1-build 0 1 0
      fi
    fi
  fi

  section "mutual-exclusion torture test (short: private nodes, faults injected)"
  REDLOCK_SO="$so" bash tests/torture/run.sh --short >"$log_dir/torture.log" 2>&1; rc=$?
  tail -n 25 "$log_dir/torture.log" | sed "s/^/    | /"
  tp=$(sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' "$log_dir/torture.log" | tail -n1)
  tf=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$log_dir/torture.log" | tail -n1)
  tp=${tp:-0}; tf=${tf:-0}; [ "$rc" -ne 0 ] && [ "$tf" -eq 0 ] && tf=1
  [ "$tp" -eq 0 ] && [ "$tf" -eq 0 ] && tf=1
  count torture "$tp" "$tf" 0

  section "fenced-storage torture test (short: client pauses past the TTL, with and without the storage check)"
  REDLOCK_SO="$so" bash tests/torture/fenced.sh --short >"$log_dir/fenced.log" 2>&1; rc=$?
  grep -E '^(mode|acquisitions|pauses|stale writes|lost updates|fence order|  FAIL|fenced:)' "$log_dir/fenced.log" | tail -n 25 | sed "s/^/    | /"
  tp=$(sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' "$log_dir/fenced.log" | tail -n1)
  tf=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$log_dir/fenced.log" | tail -n1)
  tp=${tp:-0}; tf=${tf:-0}; [ "$rc" -ne 0 ] && [ "$tf" -eq 0 ] && tf=1
  [ "$tp" -eq 0 ] && [ "$tf" -eq 0 ] && tf=1
  count fenced-torture "$tp" "$tf" 0

  if [ -f redlock_core/fuzz/fuzz_uri.c ]; then
    section "fuzzing (short, bounded)"
    step fuzz-short make -s -C redlock_core fuzz-short
  fi

  if [ -f tests/fpm/phpunit.xml ]; then
    section "PHP-FPM and CLI process tests (PHPUnit, real php-fpm)"
    REDLOCK_SO="$so" phpunit -c tests/fpm/phpunit.xml >"$log_dir/fpm.log" 2>&1; rc=$?
    tail -n 25 "$log_dir/fpm.log" | sed "s/^/    | /"
    t=$(grep -oE '(OK \(|Tests: )[0-9]+' "$log_dir/fpm.log" | grep -oE '[0-9]+' | tail -n1)
    ff=$(grep -oE '(Failures|Errors): [0-9]+' "$log_dir/fpm.log" | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')
    fs=$(grep -oE '(Skipped|Incomplete|Risky): [0-9]+' "$log_dir/fpm.log" | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')
    t=${t:-0}; ff=${ff:-0}; fs=${fs:-0}
    [ "$rc" -ne 0 ] && [ "$ff" -eq 0 ] && ff=1
    count fpm "$((t - ff - fs < 0 ? 0 : t - ff - fs))" "$ff" "$fs"
  fi

  if [ -f tests/integrations/run.sh ]; then
    section "framework adapters (PHPUnit): Symfony Lock store on symfony/lock 6.4 and 7.x, Laravel lock driver on laravel/framework 12.x (Composer installs from Packagist, outside the repo)"
    REDLOCK_SO="$so" bash tests/integrations/run.sh >"$log_dir/integrations.log" 2>&1; rc=$?
    grep -vE '^\s*$' "$log_dir/integrations.log" | tail -n 30 | sed "s/^/    | /"
    # run.sh counts each PHPUnit summary as the fpm section does, and ends with one line
    summary_count integrations "$log_dir/integrations.log" "$rc"
  fi

  if [ -f scripts/checkrel.sh ]; then
    section "packaging"
    if [ -f tests/packaging/pie_composer.php ]; then
      # composer.json for PIE: PIE's schema (../shared), composer validate, config.m4/package.xml
      php tests/packaging/pie_composer.php >"$log_dir/pie-composer.log" 2>&1; rc=$?
      sed "s/^/    | /" "$log_dir/pie-composer.log"
      summary_count pie-composer "$log_dir/pie-composer.log" "$rc"
    fi
    step checkrel bash scripts/checkrel.sh
    [ -f tests/packaging/pecl_install.sh ] && step pecl-install bash tests/packaging/pecl_install.sh
  fi

  if [ -f bench/run.sh ]; then
    section "benchmark (short form: ratios printed, no pass/fail on time)"
    step bench-short bash bench/run.sh --short
    grep -vE '^\s*$' "$log_dir/bench-short.log" | tail -n 45 | sed "s/^/    | /"
  fi
fi

echo
if [ ${#failures[@]} -gt 0 ]; then printf 'failed: %s\n' "${failures[@]}"; fi
echo "logs: $log_dir"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
