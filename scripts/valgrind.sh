#!/usr/bin/env bash
# valgrind.sh -- the whole .phpt suite under valgrind (scripts/valgrind-phpt.sh), on its own nodes (the test command runs it too).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export REDLOCK_NODES_DIR=$(mktemp -d /tmp/redlock-vg.XXXXXX) NO_INTERACTION=1 REPORT_EXIT_STATUS=1
trap 'bash tests/nodes.sh stop >/dev/null 2>&1 || true' EXIT
bash tests/nodes.sh start 5 >/dev/null
set -a; . "$REDLOCK_NODES_DIR/env"; set +a
bash scripts/valgrind-phpt.sh "$(pwd)/modules/redlock.so"
