# shellcheck shell=bash
# phpt_attempts.sh -- what each failed attempt of a .phpt test printed (sourced by scripts/test.sh
# and tests/harness/platforms/run.sh). tests/config.inc writes every attempt's output to
# $REDLOCK_PHPT_OUTDIR/<folder>_<test>.<pid>.out; run-tests.php keeps only the retry's.
#
#   phpt_attempts LOG OUTDIR    for each FAIL or WARN named in run-tests.php's output LOG (the
#                               first 5), the first 25 lines of each of its attempts, indented
phpt_attempts() {
  local t o
  for t in $(tr '\r' '\n' <"$1" | sed 's/\x1b\[[0-9;]*m//g' | grep -E '^(FAIL|WARN) ' |
             sed -n 's/.*\[\(tests\/[^]]*\)\.phpt\].*/\1/p' | head -n 5); do
    for o in "${2:-/nonexistent}/$(basename "$(dirname "$t")")_$(basename "$t")".*.out; do
      [ -f "$o" ] || continue
      echo "    | output of one attempt of $t.phpt:"; head -c 3000 "$o" | head -n 25 | sed 's/^/    |   /'
    done
  done
}
