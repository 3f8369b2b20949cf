#!/usr/bin/env bash
# tests/fpm/run.sh -- php-fpm + CLI (fork, cron) PHPUnit suite.
#   REDLOCK_SO          extension to test (default: <repo>/modules/redlock.so)
#   REDLOCK_TEST_NODES  lock nodes (from tests/nodes.sh env); when unset the
#                       suite starts and stops its own via tests/nodes.sh
# Extra arguments go to phpunit (e.g. --filter Fork).
# Last line: "fpm: N passed, N failed, N skipped".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export REDLOCK_SO=${REDLOCK_SO:-$root/modules/redlock.so}
tmp=$(mktemp -d /tmp/redlock-fpm-run.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
timeout 900 phpunit -c "$here/phpunit.xml" --log-junit "$tmp/junit.xml" "$@"
rc=$?
if [ -s "$tmp/junit.xml" ]; then
  php -r '
    $x = simplexml_load_file($argv[1]);
    $s = $x->testsuite[0] ?? $x;
    $t = (int)$s["tests"]; $f = (int)$s["failures"] + (int)$s["errors"]; $k = (int)$s["skipped"];
    printf("fpm: %d passed, %d failed, %d skipped\n", $t - $f - $k, $f, $k);
  ' "$tmp/junit.xml"
else
  echo "fpm: 0 passed, 1 failed, 0 skipped"
  [ $rc -eq 0 ] && rc=1
fi
exit $rc
