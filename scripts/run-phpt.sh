#!/usr/bin/env bash
# run-phpt.sh -- the .phpt suite through php's run-tests.php against one build of the extension.
#
#   bash scripts/run-phpt.sh SO [run-tests.php args...] [tests...]
#
# SO is the redlock.so to load. Without a test path (file or folder) or `-r LIST`
# it runs tests/ (run-tests.php recurses into its folders). The tests run under
# $TEST_PHP_EXECUTABLE (default: php; scripts/asan-php.sh for an ASan build) with
# -n: no php.ini, and redlock.restart_grace=0 (see below). Node addresses come from the environment (tests/nodes.sh env).
# The wrappers scripts/valgrind-phpt.sh and the test command (scripts/test.sh) call it.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 SO [run-tests.php args...] [tests...]" >&2; exit 2; }
so=$1; shift
export NO_INTERACTION=${NO_INTERACTION:-1}
export TEST_PHP_EXECUTABLE=${TEST_PHP_EXECUTABLE:-$(command -v php)}
what=tests/
for a in "$@"; do
  case "$a" in -r) what= ;; -*) ;; *) [ -e "$a" ] && what= ;; esac
done
# restart_grace 0 for the suite (the tests of tests/restart/ set it themselves):
# its fault tests kill and restart the shared nodes, and the default 'auto'
# would keep a restarted node out of every later test's quorum for the longest
# TTL any test asked for (docs/api.md "Restarted nodes")
exec php /usr/lib/php/*/build/run-tests.php -q -n -d "extension=$so" -d redlock.restart_grace=0 "$@" $what
