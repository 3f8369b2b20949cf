# shellcheck shell=bash
# phpunit_count.sh -- PHPUnit's summary as "passed failed skipped" (sourced by scripts/test.sh,
# tests/harness/fpm/run.sh and tests/harness/integrations/run.sh, which count a PHPUnit run the same way).
#
#   phpunit_count LOG RC     prints "P F S" for the run whose output is LOG and exit code RC
#
# Only PHPUnit's own summary line is read ("OK (N tests, ...)" or "Tests: N, Assertions: N,
# Failures: N, ..."), never a test's output. Failures, errors, warnings and risky tests
# (a test that asserted nothing tests nothing) fail; skipped and incomplete ones are
# skipped. A run that executed nothing ("No tests executed!", no summary) or exited non-zero
# with nothing failed counts one failure.
phpunit_count() {
  local log=$1 rc=$2 line t f s
  line=$(grep -E '^(OK \([0-9]+ tests?, |Tests: [0-9]+, )' "$log" | tail -n1)
  t=$(printf '%s' "$line" | grep -oE '^(OK \(|Tests: )[0-9]+' | grep -oE '[0-9]+')
  f=$(printf '%s' "$line" | grep -oE '(Failures|Errors|Warnings|Risky): [0-9]+' | grep -oE '[0-9]+' |
    awk '{s+=$1} END {print s+0}')
  s=$(printf '%s' "$line" | grep -oE '(Skipped|Incomplete): [0-9]+' | grep -oE '[0-9]+' |
    awk '{s+=$1} END {print s+0}')
  t=${t:-0} f=${f:-0} s=${s:-0}
  [ "$t" -eq 0 ] && [ "$f" -eq 0 ] && f=1       # ran nothing
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1      # failed without saying why
  echo "$((t - f - s < 0 ? 0 : t - f - s)) $f $s"
}
