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
fail_names=""

log_dir=$(mktemp -d /tmp/redlock-test.XXXXXX)
export REDLOCK_NODES_DIR="$log_dir/nodes"
cleanup() { bash tests/nodes.sh stop >/dev/null 2>&1 || true; }
trap cleanup EXIT

# each section ends with how long it took (CI's time budget is 45 minutes)
t_start=$(date +%s) sec_t0=""
section_took() { [ -n "$sec_t0" ] && printf '    | (%d s)\n' $(( $(date +%s) - sec_t0 )); return 0; }
section() { section_took; sec_t0=$(date +%s); printf '\n==== %s ====\n' "$*"; }
# Skips. A suite that ran nothing, or skipped everything it had, fails. In CI (CI=true)
# nothing skips but what this script names as expected: count's 5th argument (the no-TLS
# build's TLS tests; a suite's checks that need ../shared, only when ../shared is absent).
ci=0; [ "${CI:-}" = true ] && ci=1
shared_dir=${REDLOCK_SHARED_DIR:-$root/../shared}
# the skips to expect from a suite that needs ../shared: all of them when it is absent
shared_skips() { if [ -d "$shared_dir" ]; then echo 0; else echo "$1"; fi; }
count() { # suite passed failed skipped [skips expected]
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
# a whole step that either works or not (build, packaging, a script)
step() { # name command...
  local name=$1; shift
  if "$@" >"$log_dir/$name.log" 2>&1; then count "$name" 1 0 0; else
    tail -n 30 "$log_dir/$name.log" | sed "s/^/    | /"; count "$name" 0 1 0; return 1; fi
}
# parse run-tests.php's summary
phpt_count() { # suite logfile rc [skips expected]
  local p f s w b
  p=$(sed -n 's/^Tests passed *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  f=$(sed -n 's/^Tests failed *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  s=$(sed -n 's/^Tests skipped *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  w=$(sed -n 's/^Tests warned *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  b=$(sed -n 's/^Tests borked *: *\([0-9]*\).*/\1/p' "$2" | tail -n1)
  p=${p:-0} f=${f:-0} s=${s:-0} w=${w:-0} b=${b:-0}
  f=$((f + w + b))
  if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi          # runner failed without saying why
  # (each result line follows the progress line's \r, in colour)
  tr '\r' '\n' <"$2" | sed 's/\x1b\[[0-9;]*m//g' | grep -E '^(FAIL|LEAK|BORK|WARN)' | head -n 40 || true
  # the failed tests' files, for the closing "failed:" lines (the end of a CI log is what is kept)
  fail_names=$(tr '\r' '\n' <"$2" | sed 's/\x1b\[[0-9;]*m//g' | grep -E '^(FAIL|LEAK|BORK|WARN)' |
    grep -oE '\[tests/[^]]*\.phpt\]' | tr -d '[]' | sort -u | head -n 8 | paste -sd' ' -)
  phpt_attempts "$2" "${REDLOCK_PHPT_OUTDIR:-}"   # what each failed attempt printed
  [ "$s" -gt "${4:-0}" ] && { tr '\r' '\n' <"$2" | sed 's/\x1b\[[0-9;]*m//g' | grep -E '^SKIP' | head -n 20; }
  count "$1" "$p" "$f" "$s" "${4:-0}"
}
# a script that ends with "<name>: N passed, N failed, N skipped"
summary_count() { # suite logfile rc [skips expected]
  local line sp sf ss
  line=$(grep -E ': [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$2" | tail -n1)
  sp=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p'); sp=${sp:-0}
  sf=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p'); sf=${sf:-0}
  ss=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped$/\1/p'); ss=${ss:-0}
  [ "$3" -ne 0 ] && [ "$sf" -eq 0 ] && sf=1
  count "$1" "$sp" "$sf" "$ss" "${4:-0}"
}
# a script that ends with "N passed, N failed" (and prints "SKIP ..." for what it skipped)
passfail_count() { # suite logfile rc
  local p f s
  p=$(sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' "$2" | tail -n1)
  f=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$2" | tail -n1)
  s=$(grep -c '^SKIP' "$2")
  p=${p:-0}; f=${f:-0}; [ "$3" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  count "$1" "$p" "$f" "$s"
}
# shellcheck source=../tests/phpunit_count.sh
. "$root/tests/phpunit_count.sh"
# shellcheck source=../tests/phpt_attempts.sh
. "$root/tests/phpt_attempts.sh"
run_phpt() { # suite runner so [extra run-tests args...]: runner is scripts/run-phpt.sh or a wrapper of it
  local suite=$1 runner=$2 so=$3; shift 3
  local log="$log_dir/$suite.log"
  export REDLOCK_PHPT_OUTDIR="$log_dir/$suite.out"
  rm -rf "$REDLOCK_PHPT_OUTDIR"; mkdir -p "$REDLOCK_PHPT_OUTDIR"
  bash "$runner" "$so" "$@" >"$log" 2>&1
  phpt_count "$suite" "$log" $? "${phpt_skips:-0}"
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
# redlock_core/lock/rl_scripts_gen.c/.h are what redlock_core/lock/lua/*.lua generate (scripts/gen-lua.sh)
step lua-regen bash scripts/gen-lua.sh --check
step check-docs bash scripts/check-docs.sh
# the source list of the core, config.m4 and config.w32 agree (scripts/check-sources.sh)
step sources-agree bash scripts/check-sources.sh
so="$root/modules/redlock.so"
# TLS must be in this build (configure only warns when OpenSSL is missing): without it the
# TLS tests would skip and tls_build.phpt would accept "no". The no-TLS build is below.
has_tls() { # so: phpinfo's row "TLS => yes (OpenSSL ...)"
  php -n -d "extension=$1" -r 'ob_start(); phpinfo(INFO_MODULES); $i = ob_get_clean();
    preg_match("/^TLS => (.*)$/m", $i, $m); echo "phpinfo: TLS => ", $m[1] ?? "(no row)", "\n";
    exit(str_starts_with($m[1] ?? "", "yes") ? 0 : 1);'
}
step build-has-tls has_tls "$so" || echo "    the main build has no TLS: install libssl-dev (scripts/deps.sh) and rebuild"

# The platform matrix's cache (a Debian 13 chroot, a ZTS PHP built from source: 15-20 CPU-minutes
# when cold) is made in the background at the lowest priority while the suites below run (most of
# them wait on sockets and timers, so a core is mostly idle); the matrix waits for it.
prep_pid=""
if [ $quick -eq 0 ] && [ -f tests/platforms/run.sh ] && [ "$(id -u)" -eq 0 ]; then
  nice -n 19 ionice -c 3 bash tests/platforms/run.sh --prepare >"$log_dir/platforms-prepare.log" 2>&1 &
  prep_pid=$!
fi

section "C unit tests (redlock_core, ASan+UBSan)"
make -s -C redlock_core test >"$log_dir/unit.log" 2>&1; rc=$?
tail -n 15 "$log_dir/unit.log" | sed "s/^/    | /"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log_dir/unit.log" | tail -n1)
up=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p'); uf=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
up=${up:-0}; uf=${uf:-0}
[ "$rc" -ne 0 ] && [ "$uf" -eq 0 ] && uf=1
count c-unit "$up" "$uf" 0

section "metrics table (tests/metrics/table_test.sh: threads and processes under ThreadSanitizer and again under ASan+UBSan, SIGKILL/SIGSTOP mid-claim, a damaged table, per-user files)"
bash tests/metrics/table_test.sh >"$log_dir/metrics-table.log" 2>&1; rc=$?
grep -vE '^PASS' "$log_dir/metrics-table.log" | tail -n 15 | sed "s/^/    | /"
summary_count metrics-table "$log_dir/metrics-table.log" "$rc"

section "model checks of the fencing protocol, the semaphore rule, the fair queue and the core with restarts (randomized, fixed seed, bounded)"
make -s -C redlock_core model >"$log_dir/model.log" 2>&1; rc=$?
sed -n '/^correct .*nodes:/,/^restart-any-raise .*5 nodes:/p' "$log_dir/model.log" | sed "s/^/    | /"
grep -E '^(slots|counter|any-slot) +[0-9]+ counterexamples' "$log_dir/model.log" | sed "s/^/    | /"
grep -E '^(quorum-max|no-raise|minority-ticket|local-ticket|drop-on-set|outlier-short) ' "$log_dir/model.log" | sed "s/^/    | /"
grep -E '^(core|late-extend|fresh|no-check|grace-1s) +([0-9]+ counterexamples|scripted)' "$log_dir/model.log" | sed "s/^/    | /"
# (one "N passed, N failed" line per model: both count)
mp=$(sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' "$log_dir/model.log" | awk '{s += $1} END {print s + 0}')
mf=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$log_dir/model.log" | awk '{s += $1} END {print s + 0}')
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

# Two lanes on the two cores while the .phpt suite and the CLI checks run (both mostly wait on
# sockets and timers): in the background (lane B, on its own nodes, node set B, and its own copy
# of the tree: run-tests.php writes its files next to the tests) the no-TLS and hiredis 1.x builds
# and their suites; counted below, after valgrind and ASan, in the order they always had. (The
# CPU-heavy suites, valgrind and ASan, run alone: side by side with each other they starved the
# watchdog and wake-up tests under valgrind in a CI-style run.)
lane_b_pid=""
if [ $quick -eq 0 ]; then
  lane_b_dir="$log_dir/lane-b"
  notls_dir="$log_dir/notls-build" h1_dir="$log_dir/hiredis1"
  lane_b() {
    export REDLOCK_NODES_DIR="$log_dir/nodes-b"
    { bash tests/nodes.sh start 5 && bash tests/nodes.sh start-tls 3; } >"$log_dir/test-nodes-b.log" 2>&1
    echo $? >"$lane_b_dir/nodes.rc"
    set -a; . "$REDLOCK_NODES_DIR/env"; set +a
    mkdir -p "$notls_dir"; git ls-files -z | xargs -0 -I{} cp --parents {} "$notls_dir"/ 2>/dev/null
    REDLOCK_CONFIGURE_ARGS=--disable-redlock-tls bash "$notls_dir/scripts/build.sh" >"$log_dir/build-notls.log" 2>&1
    echo $? >"$lane_b_dir/build-notls.rc"
    if [ "$(cat "$lane_b_dir/build-notls.rc")" = 0 ]; then
      mkdir -p "$log_dir/phpt-notls.out"
      REDLOCK_PHPT_OUTDIR="$log_dir/phpt-notls.out" \
        bash "$notls_dir/scripts/run-phpt.sh" "$notls_dir/modules/redlock.so" tests/tls/ >"$log_dir/phpt-notls.log" 2>&1
      echo $? >"$lane_b_dir/phpt-notls.rc"
    fi
    if [ -f tests/hiredis1/run.sh ]; then
      bash tests/hiredis1/run.sh --build-only "$h1_dir" >"$log_dir/hiredis1-build.log" 2>&1; echo $? >"$lane_b_dir/hiredis1.rc"
      if [ "$(cat "$lane_b_dir/hiredis1.rc")" = 0 ]; then
        mkdir -p "$log_dir/phpt-hiredis1.out"
        # (the no-TLS copy's tests: the same files, run-tests.php's own next to them)
        REDLOCK_PHPT_OUTDIR="$log_dir/phpt-hiredis1.out" \
          bash "$notls_dir/scripts/run-phpt.sh" "$h1_dir/ext/modules/redlock.so" >"$log_dir/phpt-hiredis1.log" 2>&1
        echo $? >"$lane_b_dir/phpt-hiredis1.rc"
      fi
    fi
    bash tests/nodes.sh stop >/dev/null 2>&1
  }
  mkdir -p "$lane_b_dir"
  lane_b >"$log_dir/lane-b.log" 2>&1 &
  lane_b_pid=$!
  cleanup() {
    [ -n "${lane_b_pid:-}" ] && kill "$lane_b_pid" 2>/dev/null
    REDLOCK_NODES_DIR="$log_dir/nodes-b" bash tests/nodes.sh stop >/dev/null 2>&1
    bash tests/nodes.sh stop >/dev/null 2>&1 || true
  }
fi

section ".phpt suite"
run_phpt phpt scripts/run-phpt.sh "$so"

section "redlock(1) command-line program (tests/cli/run.sh: the real binary against the nodes)"
REDLOCK_SO="$so" bash tests/cli/run.sh >"$log_dir/cli.log" 2>&1; rc=$?
grep -E '^(FAIL|SKIP)' "$log_dir/cli.log" | head -n 30 | sed "s/^/    | /"
passfail_count cli "$log_dir/cli.log" "$rc"

if [ $quick -eq 0 ]; then
  t_w=$(date +%s); wait "$lane_b_pid"; lane_b_pid=""
  echo "    | (lane B: waited $(( $(date +%s) - t_w )) s for the no-TLS and hiredis 1.x suites)"
  lane_rc() { cat "$lane_b_dir/$1.rc" 2>/dev/null || echo 1; }
  # a build of lane B: counted as step() counts
  lane_step() { # name
    if [ "$(lane_rc "$1")" = 0 ]; then count "$1" 1 0 0; else
      tail -n 30 "$log_dir/$1.log" | sed "s/^/    | /"; count "$1" 0 1 0; return 1; fi
  }
  if [ "$(lane_rc nodes)" = 0 ]; then count test-nodes-b 1 0 0; else
    tail -n 10 "$log_dir/test-nodes-b.log" | sed "s/^/    | /"; count test-nodes-b 0 1 0
  fi

  section ".phpt suite under valgrind (run-tests.php -m)"
  # tests that say "skip ... under valgrind[/ASan]" in their SKIPIF: expected there (at most that many)
  sanitizer_skips=$(grep -rlE "die\('skip .*under valgrind" tests --include='*.phpt' | wc -l)
  phpt_skips=$sanitizer_skips run_phpt phpt-valgrind scripts/valgrind-phpt.sh "$so"

  section ".phpt suite against an ASan+UBSan build (USE_ZEND_ALLOC=0)"
  asan_dir="$log_dir/asan-build"
  mkdir -p "$asan_dir"
  git ls-files -z | xargs -0 -I{} cp --parents {} "$asan_dir"/ 2>/dev/null
  if step build-asan bash "$asan_dir/scripts/build.sh" --asan; then
    # the tests' php preloads the sanitizer runtime (scripts/asan-php.sh says why)
    REDLOCK_ASAN_SHIM_DIR="$asan_dir" TEST_PHP_EXECUTABLE="$root/scripts/asan-php.sh" \
      phpt_skips=$sanitizer_skips run_phpt phpt-asan scripts/run-phpt.sh "$asan_dir/modules/redlock.so"
  fi

  section "build without TLS (--disable-redlock-tls): TLS nodes refused with a ValueError (tests/tls)"
  if lane_step build-notls; then
    # every TLS test but tls_build.phpt skips there: that many skips are expected
    REDLOCK_PHPT_OUTDIR="$log_dir/phpt-notls.out" \
      phpt_count phpt-notls "$log_dir/phpt-notls.log" "$(lane_rc phpt-notls)" "$(grep -l rl_tls_skipif tests/tls/*.phpt | wc -l)"
  fi

  if [ -f tests/hiredis1/run.sh ]; then
    section ".phpt suite and C unit tests against hiredis 1.4.1 (../shared/third_party; the OS has 0.14)"
    rc=$(lane_rc hiredis1)
    sed "s/^/    | /" "$log_dir/hiredis1-build.log" | tail -n 30
    if [ "$rc" -eq 77 ]; then
      count hiredis1 0 0 1 "$(shared_skips 1)"   # the tarball is absent: the reason is printed above
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
        REDLOCK_PHPT_OUTDIR="$log_dir/phpt-hiredis1.out" \
          phpt_count phpt-hiredis1 "$log_dir/phpt-hiredis1.log" "$(lane_rc phpt-hiredis1)"
      else
        count hiredis1-build 0 1 0
      fi
    fi
  fi

  section "mutual-exclusion torture test (short: private nodes, faults injected)"
  REDLOCK_SO="$so" bash tests/torture/run.sh --short >"$log_dir/torture.log" 2>&1; rc=$?
  tail -n 25 "$log_dir/torture.log" | sed "s/^/    | /"
  passfail_count torture "$log_dir/torture.log" "$rc"
  # the torture can fail: without the lock (TORTURE_NO_LOCK=1) its check must find lost
  # updates or overlaps (a few seconds suffice, no faults needed)
  TORTURE_NO_LOCK=1 TORTURE_NO_FAULTS=1 REDLOCK_SO="$so" bash tests/torture/run.sh --long 5 \
    >"$log_dir/torture-nolock.log" 2>&1; rc=$?
  grep -E '^(mode|lost updates|overlaps|FAIL)' "$log_dir/torture-nolock.log" | sed "s/^/    | /"
  if [ "$rc" -ne 0 ] && grep -qE '^FAIL: (lost updates|overlaps)' "$log_dir/torture-nolock.log"; then
    count torture-can-fail 1 0 0
  else
    count torture-can-fail 0 1 0
  fi

  section "randomized fault run (tests/faultrun --short: restarts, pauses, partitions, clock steps, deleted keys; restart_grace 'auto')"
  REDLOCK_SO="$so" bash tests/faultrun/run.sh --short >"$log_dir/faultrun.log" 2>&1; rc=$?
  grep -vE '^    ' "$log_dir/faultrun.log" | tail -n 25 | sed "s/^/    | /"
  summary_count faultrun "$log_dir/faultrun.log" "$rc"

  section "real network faults (tests/netfault: nodes in network namespaces, silent partitions, loss; root only)"
  REDLOCK_SO="$so" bash tests/netfault/run.sh >"$log_dir/netfault.log" 2>&1; rc=$?
  grep -E '^(PASS|FAIL|SKIP) ' "$log_dir/netfault.log" | sed "s/^/    | /"
  # it skips (saying why) only where namespaces cannot be made; under CI=true that skip
  # is a failure like any other (count's rule): CI runs as root with nftables installed
  summary_count netfault "$log_dir/netfault.log" "$rc"

  section "fenced-storage torture test (short: client pauses past the TTL, with and without the storage check)"
  REDLOCK_SO="$so" bash tests/torture/fenced.sh --short >"$log_dir/fenced.log" 2>&1; rc=$?
  grep -E '^(mode|acquisitions|pauses|stale writes|lost updates|fence order|  FAIL|fenced:)' "$log_dir/fenced.log" | tail -n 25 | sed "s/^/    | /"
  passfail_count fenced-torture "$log_dir/fenced.log" "$rc"

  if [ -f redlock_core/fuzz/fuzz_uri.c ]; then
    section "fuzzing (short, bounded)"
    step fuzz-short make -s -C redlock_core fuzz-short
  fi

  if [ -f tests/fpm/phpunit.xml ]; then
    section "PHP-FPM and CLI process tests (PHPUnit, real php-fpm)"
    REDLOCK_SO="$so" phpunit --verbose -c tests/fpm/phpunit.xml >"$log_dir/fpm.log" 2>&1; rc=$?
    tail -n 25 "$log_dir/fpm.log" | sed "s/^/    | /"
    # (skipped tests are named in PHPUnit's --verbose list)
    read -r fp ff fs < <(phpunit_count "$log_dir/fpm.log" "$rc")
    count fpm "$fp" "$ff" "$fs"
  fi

  if [ -f tests/integrations/run.sh ]; then
    section "framework adapters (PHPUnit): Symfony Lock store on symfony/lock 6.4 and 7.x, Laravel lock driver on laravel/framework 12.x (Composer installs from Packagist, outside the repo)"
    REDLOCK_SO="$so" bash tests/integrations/run.sh >"$log_dir/integrations.log" 2>&1; rc=$?
    grep -vE '^\s*$' "$log_dir/integrations.log" | tail -n 30 | sed "s/^/    | /"
    # run.sh counts each PHPUnit summary as the fpm section does, and ends with one line
    summary_count integrations "$log_dir/integrations.log" "$rc" "$(shared_skips 1000000)"
  fi

  if [ -f scripts/checkrel.sh ]; then
    section "packaging"
    if [ -f tests/packaging/pie_composer.php ]; then
      # composer.json for PIE: PIE's schema (../shared), composer validate, config.m4/package.xml
      php tests/packaging/pie_composer.php >"$log_dir/pie-composer.log" 2>&1; rc=$?
      sed "s/^/    | /" "$log_dir/pie-composer.log"
      summary_count pie-composer "$log_dir/pie-composer.log" "$rc" "$(shared_skips 1000000)"
    fi
    step checkrel bash scripts/checkrel.sh
    [ -f tests/packaging/pecl_install.sh ] && step pecl-install bash tests/packaging/pecl_install.sh
  fi

  if [ -f tests/platforms/run.sh ]; then
    section "platform matrix (tests/platforms/run.sh): Debian 13 chroot (PHP 8.4, Redis 8.0 / Valkey 8.1 nodes), ZTS debug PHP 8.2, 8 threads over the embed SAPI"
    if [ -n "$prep_pid" ]; then
      t_w=$(date +%s); wait "$prep_pid"
      sed 's/^/    | /' "$log_dir/platforms-prepare.log" | tail -n 8
      echo "    | (waited $(( $(date +%s) - t_w )) s for it)"
    fi
    bash tests/platforms/run.sh >"$log_dir/platforms.log" 2>&1; rc=$?
    grep -E '^(platforms?: |    \| |FAIL)' "$log_dir/platforms.log" | grep -vE ': [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' |
      tail -n 40 | sed "s/^/    | /"
    # one count per entry: "platform ENTRY: N passed, N failed, N skipped"
    pl_n=0 pl_f=0
    # the Debian 13 chroot has no promtool (Prometheus is not a platform under test): the
    # promtool check skips there, saying so; it runs in this machine's .phpt suites
    pl_promtool=$(grep -l "promtool not installed" tests/metrics/*.phpt 2>/dev/null | wc -l)
    while read -r pl_e pl_p pl_x pl_s; do
      pl_exp=0; case $pl_e in trixie-*) pl_exp=$pl_promtool ;; esac
      count "platform-$pl_e" "$pl_p" "$pl_x" "$pl_s" "$pl_exp"; pl_n=$((pl_n + 1)); pl_f=$((pl_f + pl_x))
    done < <(sed -nE 's/^platform ([a-z0-9-]+): ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3 \4/p' "$log_dir/platforms.log")
    if [ "$pl_n" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$pl_f" -eq 0 ]; }; then count platforms 0 1 0; fi
  fi

  if [ -f bench/run.sh ]; then
    section "benchmark (short form: ratios printed, no pass/fail on time)"
    step bench-short bash bench/run.sh --short
    grep -vE '^\s*$' "$log_dir/bench-short.log" | tail -n 45 | sed "s/^/    | /"
    # its table's rows: a row it could not run (a package missing: scripts/deps.sh installs
    # what it needs) is a skip, a crashed implementation a failure
    bench_rows=$(grep -E '^(lan|loopback|slow|down) ' "$log_dir/bench-short.log")
    br_s=$(grep -c 'skipped: ' <<<"$bench_rows"); br_f=$(grep -c 'CRASHED' <<<"$bench_rows")
    count bench-rows "$(($(grep -c . <<<"$bench_rows") - br_s - br_f))" "$br_f" "$br_s"
  fi
fi

section_took
echo
if [ ${#failures[@]} -gt 0 ]; then printf 'failed: %s\n' "${failures[@]}"; fi
echo "logs: $log_dir (the whole run: $(( $(date +%s) - t_start )) s)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
