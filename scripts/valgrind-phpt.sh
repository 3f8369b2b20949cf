#!/usr/bin/env bash
# valgrind-phpt.sh -- the .phpt suite under valgrind (run-tests.php -m): LEAK/FAIL on any report.
#
#   bash scripts/valgrind-phpt.sh SO [run-tests.php args...] [tests...]   (as scripts/run-phpt.sh)
#
# run-tests traces children: the shells and redis-servers a test starts (node
# restarts) must run at full speed, or their replies miss the 50 ms timeouts (and
# strace, which cannot run under valgrind, runs its php natively; promtool is a Go program), and
# so must the tests' stand-in servers (tests/hostile/hostile.inc, tests/faults/resetproxy.inc: a
# php -n without the extension, a fixture, not what is checked; traced, each took seconds to start);
# pcre.jit=0 because valgrind cannot follow PCRE's JIT code (false reports).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 SO [run-tests.php args...] [tests...]" >&2; exit 2; }
so=$1; shift
export VALGRIND_OPTS="--fair-sched=yes --trace-children-skip=*/bash,*/sh,*/redis-server,*/redis-cli,*/strace,*/promtool --trace-children-skip-by-arg=*/hostile.inc,*/resetproxy.inc"
exec bash "$here/run-phpt.sh" "$so" -m -d pcre.jit=0 "$@"
