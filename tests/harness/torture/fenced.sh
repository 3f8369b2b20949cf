#!/usr/bin/env bash
# fenced.sh -- fenced-storage torture test: fencing tokens under client pauses.
#
#   tests/harness/torture/fenced.sh --short            bounded (<= 60 s): 4 workers, 2 x 10 s
#   tests/harness/torture/fenced.sh --long [SECONDS]   default 600 s per mode
#
# P worker processes (tests/harness/torture/fenced.php) take ONE resource with a short TTL and
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
# Arguments, extension check, nodes and worker start/stop: tests/harness/torture/common.sh.
#
# Environment:
#   REDLOCK_SO       extension to test (default: <repo>/modules/redlock.so)
#   FENCED_WORKERS   worker processes (default 4)
#   FENCED_TTL       lock TTL in ms (default 300)
#   FENCED_MODES     modes to run (default "check nocheck")
set -uo pipefail

tag=fenced
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"
setup 10 "$@"

workers=${FENCED_WORKERS:-4}
ttl=${FENCED_TTL:-300}
modes=${FENCED_MODES:-check nocheck}
private_nodes
export FENCED_TTL=$ttl

nodes_up

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
        start_worker "$w" "$end_s" "$out/worker-$w.json" "$out/worker-$w.pid"
    done
    # stop injecting 1 s before the workers stop, so every paused worker gets to finish
    # the injector stops a worker with posix_kill where it can (no shell forked between seeing
    # the worker inside its critical section and stopping it: on a loaded machine that fork let
    # 9 of 9 pauses miss the critical section in a CI-style run)
    php_saved=("${php[@]}")
    if php -n -d extension=posix -r 'exit(function_exists("posix_kill") ? 0 : 1);' 2>/dev/null; then
        php+=(-d extension=posix)
    fi
    bounded "$out/injector.log" inject $((end_s - 1)) "$out/injector.json" "$out"
    injector_pid=$!
    php=("${php_saved[@]}")
    wait_run
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
