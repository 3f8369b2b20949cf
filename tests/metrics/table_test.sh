#!/usr/bin/env bash
# tests/metrics/table_test.sh -- build and run table_test.c: the metrics table of redlock_metrics.c from
# threads (ThreadSanitizer) and processes. Last line: "metrics-table: N passed, N failed, N skipped".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=${CC:-}
if [ -z "$cc" ]; then
  for c in clang-14 clang cc; do command -v "$c" >/dev/null && { cc=$c; break; }; done
fi
out=$(mktemp -d /tmp/redlock-metrics-table.XXXXXX)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2046
if ! "$cc" -std=gnu11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Wno-unused-parameter -Wno-unused-function -Werror \
    -fsanitize=thread -fno-omit-frame-pointer $(php-config --includes) -I"$root" -I"$root/redlock_core" \
    "$here/table_test.c" -lpthread -o "$out/table_test" 2>"$out/cc.log"; then
  cat "$out/cc.log"
  echo "metrics-table: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
# halt_on_error: a data race is a failure, not a warning
TSAN_OPTIONS="halt_on_error=1 exitcode=66" timeout 300 "$out/table_test" "$@"
