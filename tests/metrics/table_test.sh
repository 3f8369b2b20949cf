#!/usr/bin/env bash
# tests/metrics/table_test.sh -- build and run table_test.c: the metrics table (redlock_metrics_table.c) from
# threads (ThreadSanitizer) and processes, and again under AddressSanitizer + UBSan.
# Last line: "metrics-table: N passed, N failed, N skipped" (both builds).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=${CC:-}
if [ -z "$cc" ]; then
  for c in clang-14 clang cc; do command -v "$c" >/dev/null && { cc=$c; break; }; done
fi
out=$(mktemp -d /tmp/redlock-metrics-table.XXXXXX)
trap 'rm -rf "$out"' EXIT
# two builds of the same tests: ThreadSanitizer (races between threads and processes) and
# AddressSanitizer + UBSan (a read past the table or a name, a free of what malloc did not give)
build() { # name, sanitizer flags
  # shellcheck disable=SC2046
  "$cc" -std=gnu11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Wno-unused-parameter -Wno-unused-function -Werror \
    $2 -fno-omit-frame-pointer $(php-config --includes) -I"$root" -I"$root/redlock_core" \
    "$here/table_test.c" -lpthread -o "$out/$1" 2>>"$out/cc.log"
}
if ! build table_tsan -fsanitize=thread || ! build table_asan "-fsanitize=address,undefined -fno-sanitize-recover=undefined"; then
  cat "$out/cc.log"
  echo "metrics-table: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
passed=0 failed=0 rc=0
for b in table_tsan table_asan; do
  echo "== $b"
  # halt_on_error: a data race is a failure, not a warning
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" ASAN_OPTIONS="abort_on_error=0 exitcode=67" \
    timeout 300 "$out/$b" "$@" | tee "$out/$b.log"
  r=${PIPESTATUS[0]}
  line=$(grep -E '^metrics-table: [0-9]+ passed, [0-9]+ failed' "$out/$b.log" | tail -n1)
  p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p'); f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
  p=${p:-0}; f=${f:-0}
  # a sanitizer report or a crash ends the program before its line: one failure
  if [ "$r" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  [ "$r" -ne 0 ] && rc=1
  passed=$((passed + p)); failed=$((failed + f))
done
echo "metrics-table: $passed passed, $failed failed, 0 skipped"
exit $rc
