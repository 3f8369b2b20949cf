#!/usr/bin/env bash
# valgrind.sh -- the whole .phpt suite under valgrind (run-tests.php -m); slow (30+ minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export REDLOCK_NODES_DIR=$(mktemp -d /tmp/redlock-vg.XXXXXX) NO_INTERACTION=1 REPORT_EXIT_STATUS=1
trap 'bash tests/nodes.sh stop >/dev/null 2>&1 || true' EXIT
bash tests/nodes.sh start 5 >/dev/null
set -a; . "$REDLOCK_NODES_DIR/env"; set +a
# trace php children, not the shells and redis-servers that tests start (node restarts)
export VALGRIND_OPTS="--trace-children-skip=*/bash,*/sh,*/redis-server,*/redis-cli"
TEST_PHP_EXECUTABLE=$(command -v php) php /usr/lib/php/*/build/run-tests.php -q -n -m \
  -d "extension=$(pwd)/modules/redlock.so" tests/
