#!/usr/bin/env bash
# valgrind.sh -- the whole .phpt suite under valgrind (run-tests.php -m), on its own nodes (the test command runs it too).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export REDLOCK_NODES_DIR=$(mktemp -d /tmp/redlock-vg.XXXXXX) NO_INTERACTION=1 REPORT_EXIT_STATUS=1
trap 'bash tests/nodes.sh stop >/dev/null 2>&1 || true' EXIT
bash tests/nodes.sh start 5 >/dev/null
set -a; . "$REDLOCK_NODES_DIR/env"; set +a
# trace php children, not the shells and redis-servers that tests start (node restarts)
export VALGRIND_OPTS="--trace-children-skip=*/bash,*/sh,*/redis-server,*/redis-cli"
# pcre.jit=0: valgrind cannot follow PCRE's JIT code
TEST_PHP_EXECUTABLE=$(command -v php) php /usr/lib/php/*/build/run-tests.php -q -n -m -d pcre.jit=0 \
  -d "extension=$(pwd)/modules/redlock.so" tests/
