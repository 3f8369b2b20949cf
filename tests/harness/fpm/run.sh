#!/usr/bin/env bash
# tests/harness/fpm/run.sh -- php-fpm + CLI (fork, cron) PHPUnit suite.
#   REDLOCK_SO          extension to test (default: <repo>/modules/redlock.so)
#   REDLOCK_TEST_NODES  lock nodes (from tests/nodes.sh env); when unset the
#                       suite starts and stops its own via tests/nodes.sh
# Extra arguments go to phpunit (e.g. --filter Fork).
# Last line: "fpm: N passed, N failed, N skipped".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
export REDLOCK_SO=${REDLOCK_SO:-$root/modules/redlock.so}
tmp=$(mktemp -d /tmp/redlock-fpm-run.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../../phpunit_count.sh
. "$root/tests/phpunit_count.sh"
timeout 900 phpunit --verbose -c "$here/phpunit.xml" "$@" | tee "$tmp/phpunit.log"
rc=${PIPESTATUS[0]}
# counted as scripts/test.sh counts it (risky tests fail, a run of nothing fails)
read -r p f s < <(phpunit_count "$tmp/phpunit.log" "$rc")
echo "fpm: $p passed, $f failed, $s skipped"
[ "$f" -gt 0 ] && [ "$rc" -eq 0 ] && rc=1
exit $rc
