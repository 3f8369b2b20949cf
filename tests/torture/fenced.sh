#!/usr/bin/env bash
# fenced.sh -- fenced-storage torture test: fencing tokens under client pauses.
#
#   tests/torture/fenced.sh --short            bounded (<= 60 s): 4 workers, 2 x 10 s
#   tests/torture/fenced.sh --long [SECONDS]   default 600 s per mode
#
# P worker processes (tests/torture/fenced.php) take ONE resource with a short TTL and
# 'fencing' => true over 5 real lock nodes (tests/nodes.sh, in a PRIVATE state dir);
# inside the critical section each does a read-modify-write of a counter kept on the
# AUX node (the protected storage). An injector SIGSTOPs a worker that is inside its
# critical section for longer than the TTL (so another worker acquires meanwhile),
# then SIGCONTs it. Two runs:
#   check    the storage refuses a read or write whose fence is below the highest
#            fence it has seen (a Lua check): must lose NO update, and must have
#            rejected stale operations (else the pauses proved nothing);
#   nocheck  the same with plain GET/SET: must LOSE updates (shows the test can fail).
# Both runs also check the fencing guarantee itself on every acquisition (one
# monotonic clock across processes). Ends with "N passed, N failed"; exit 0 on pass.
#
# Environment:
#   REDLOCK_SO       extension to test (default: <repo>/modules/redlock.so)
#   FENCED_WORKERS   worker processes (default 4)
#   FENCED_TTL       lock TTL in ms (default 300)
#   FENCED_MODES     modes to run (default "check nocheck")
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nodes_sh="$root/tests/nodes.sh"

die() { echo "fenced: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
usage() { echo "usage: $0 --short | --long [SECONDS]" >&2; exit 2; }

case "${1:-}" in
    --short) secs=10 ;;
    --long)
        secs=${2:-600}
        case "$secs" in ''|*[!0-9]*|0) usage ;; esac
        ;;
    *) usage ;;
esac

workers=${FENCED_WORKERS:-4}
ttl=${FENCED_TTL:-300}
modes=${FENCED_MODES:-check nocheck}
so=${REDLOCK_SO:-$root/modules/redlock.so}
[ -f "$so" ] || die "extension not found: $so (bash scripts/build.sh, or set REDLOCK_SO)"
php=(php -n -d "extension=$so")
"${php[@]}" -r 'exit(extension_loaded("redlock") ? 0 : 1);' || die "cannot load $so"

work=$(mktemp -d /tmp/redlock-fenced.XXXXXX)
unset REDLOCK_TEST_NODES REDLOCK_TEST_AUX
export REDLOCK_NODES_DIR="$work/nodes" FENCED_TTL=$ttl

worker_pids=()
injector_pid=
out=
stop_all() {
    local p t alive f
    [ -n "$injector_pid" ] && kill -TERM "$injector_pid" 2>/dev/null && wait "$injector_pid" 2>/dev/null
    injector_pid=
    # a stopped worker must be continued before it can act on TERM (the pid files hold
    # the php pids of this mode's workers; worker_pids are their timeout(1) parents)
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
    stop_all
    bash "$nodes_sh" stop >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bash "$nodes_sh" start 5 >/dev/null || die "could not start the test nodes"
set -a
. "$REDLOCK_NODES_DIR/env" || die "no $REDLOCK_NODES_DIR/env"
set +a
[ -n "${REDLOCK_TEST_AUX:-}" ] || die "no AUX node"

total_p=0 total_f=0
for mode in $modes; do
    out="$work/$mode"
    mkdir -p "$out"
    export FENCED_MODE=$mode FENCED_RUN="run$$x$RANDOM$mode"
    "${php[@]}" "$here/fenced.php" reset || die "AUX node unreachable"
    end_s=$(( $(date +%s) + secs ))
    echo "fenced: mode $mode, $workers workers, ${secs} s, ttl $ttl ms, nodes $REDLOCK_TEST_NODES, storage (AUX) $REDLOCK_TEST_AUX"
    echo "$workers" >"$out/workers"
    for ((w = 1; w <= workers; w++)); do
        # hard bound per worker: the deadline, plus the longest lock() wait and pause, plus slack
        timeout -k 2 $((secs + 20)) "${php[@]}" "$here/fenced.php" worker "$w" "$end_s" \
            "$out/worker-$w.json" "$out/worker-$w.pid" >"$out/worker-$w.log" 2>&1 &
        worker_pids+=($!)
    done
    # stop injecting 1 s before the workers stop, so every paused worker gets to finish
    timeout -k 2 $((secs + 20)) "${php[@]}" "$here/fenced.php" inject $((end_s - 1)) "$out/injector.json" "$out" \
        >"$out/injector.log" 2>&1 &
    injector_pid=$!
    for ((w = 1; w <= workers; w++)); do
        wait "${worker_pids[w - 1]}"
        echo "$w $?" >>"$out/exit-codes"
    done
    worker_pids=()
    wait "$injector_pid"
    injector_pid=
    for f in "$out"/worker-*.log "$out/injector.log"; do
        [ -s "$f" ] && { echo "--- $(basename "$f"):"; head -n 10 "$f"; }
    done
    "${php[@]}" "$here/fenced.php" check "$out" "$mode" | tee "$out/check.txt"
    p=$(sed -n 's/^mode checks: \([0-9]*\) passed, [0-9]* failed$/\1/p' "$out/check.txt")
    f=$(sed -n 's/^mode checks: [0-9]* passed, \([0-9]*\) failed$/\1/p' "$out/check.txt")
    p=${p:-0} f=${f:-0}
    [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && f=1
    total_p=$((total_p + p)) total_f=$((total_f + f))
    echo
done
[ $total_f -eq 0 ] && echo "fenced: PASS" || echo "fenced: FAIL"
echo "$total_p passed, $total_f failed"
[ $total_f -eq 0 ]
