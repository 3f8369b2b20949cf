# shellcheck shell=bash disable=SC2154  # $tag, $workers: set by the driver
# common.sh -- the parts shared by the torture drivers run.sh and fenced.sh (sourced by
# them, not run by itself).
#
# The driver sets $tag before sourcing: the prefix of its messages ("$tag: ...") and of
# its temp dir (/tmp/redlock-$tag.XXXXXX); its PHP side is tests/harness/torture/$tag.php.
# Sourcing sets $here, $root, $nodes_sh and defines:
#   die MSG...            MSG to stderr, "0 passed, 1 failed" to stdout, exit 1
#   usage                 the usage line to stderr, exit 2
#   setup SHORT_SECS ARGS...
#                         ARGS: --short (SHORT_SECS s) | --long [SECONDS] (default 600),
#                         into $secs; checks that php loads $REDLOCK_SO (default
#                         <repo>/modules/redlock.so) and sets $so and $php (the php
#                         command line, an array); makes the temp dir $work
#   private_nodes         the lock nodes will be private ones, in $work/nodes
#   nodes_up              arms the cleanup (on EXIT: stop_all, the nodes stopped -- or,
#                         when $shared = 1, resumed/restarted --, $work removed), starts 5
#                         lock nodes + AUX unless $shared = 1, loads their env, checks AUX
#   bounded LOG ARGS...   starts "$php $tag.php ARGS..." in the background under
#                         timeout(1) (the deadline $secs, plus the longest lock() wait
#                         and pause, plus slack), output to LOG; $! is its pid
#   start_worker N ARGS...  bounded "$out/worker-N.log" worker N ARGS..., into $worker_pids
#   wait_run              waits for the $workers workers (their "id rc" lines appended to
#                         $out/exit-codes), then for the injector ($injector_pid), if any
#   stop_all              stops the injector and the workers (the php pids in
#                         $out/worker-*.pid are continued first: a stopped worker cannot
#                         act on TERM), TERM, then KILL after 2 s

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
nodes_sh="$root/tests/nodes.sh"

shared=0          # 1: the nodes of $REDLOCK_TEST_NODES / $REDLOCK_NODES_DIR (run.sh)
worker_pids=()    # the workers' timeout(1) processes
injector_pid=
out=              # the current run's output dir

die() { echo "$tag: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
usage() { echo "usage: $0 --short | --long [SECONDS]" >&2; exit 2; }

setup() {
    case "${2:-}" in
        --short) secs=$1 ;;
        --long)
            secs=${3:-600}
            case "$secs" in ''|*[!0-9]*|0) usage ;; esac
            ;;
        *) usage ;;
    esac
    so=${REDLOCK_SO:-$root/modules/redlock.so}
    [ -f "$so" ] || die "extension not found: $so (bash scripts/build.sh, or set REDLOCK_SO)"
    php=(php -n -d "extension=$so")
    "${php[@]}" -r 'exit(extension_loaded("redlock") ? 0 : 1);' || die "cannot load $so"
    work=$(mktemp -d "/tmp/redlock-$tag.XXXXXX")
}

private_nodes() {
    unset REDLOCK_TEST_NODES REDLOCK_TEST_AUX
    export REDLOCK_NODES_DIR="$work/nodes"
}

stop_all() {
    local p t alive f
    [ -n "$injector_pid" ] && kill -TERM "$injector_pid" 2>/dev/null && wait "$injector_pid" 2>/dev/null
    injector_pid=
    # worker_pids are timeout(1) processes: they forward TERM to their php child
    if [ ${#worker_pids[@]} -gt 0 ] && [ -n "$out" ]; then
        for f in "$out"/worker-*.pid; do [ -f "$f" ] && kill -CONT "$(cat "$f")" 2>/dev/null; done
    fi
    for p in "${worker_pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for ((t = 0; t < 20; t++)); do
        alive=0
        for p in "${worker_pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for p in "${worker_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    for p in "${worker_pids[@]}"; do wait "$p" 2>/dev/null; done
    worker_pids=()
}

cleanup() {
    local i n
    stop_all
    if [ "$shared" = 1 ]; then
        n=$(cat "$REDLOCK_NODES_DIR/count" 2>/dev/null || echo 5)
        for ((i = 1; i <= n; i++)); do
            bash "$nodes_sh" resume "$i" >/dev/null 2>&1
            bash "$nodes_sh" status 2>/dev/null | grep -q "^node$i .* up$" ||
                bash "$nodes_sh" restart "$i" >/dev/null 2>&1
        done
    else
        bash "$nodes_sh" stop >/dev/null 2>&1
    fi
    rm -rf "$work"
}

nodes_up() {
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    if [ "$shared" = 0 ]; then
        bash "$nodes_sh" start 5 >/dev/null || die "could not start the test nodes"
    fi
    set -a
    # shellcheck disable=SC1091  # written by tests/nodes.sh start
    . "$REDLOCK_NODES_DIR/env" || die "no $REDLOCK_NODES_DIR/env"
    set +a
    [ -n "${REDLOCK_TEST_AUX:-}" ] || die "no AUX node"
}

bounded() {
    local log=$1
    shift
    timeout -k 2 $((secs + 20)) "${php[@]}" "$here/$tag.php" "$@" >"$log" 2>&1 &
}

start_worker() {
    bounded "$out/worker-$1.log" worker "$@"
    worker_pids+=("$!")
}

wait_run() {
    local w
    for ((w = 1; w <= workers; w++)); do
        wait "${worker_pids[w - 1]}"
        echo "$w $?" >>"$out/exit-codes"
    done
    worker_pids=()
    if [ -n "$injector_pid" ]; then
        wait "$injector_pid"
        injector_pid=
    fi
}
