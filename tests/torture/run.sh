#!/usr/bin/env bash
# run.sh -- mutual-exclusion torture test of the redlock extension under node faults.
#
#   tests/torture/run.sh --short            bounded (<= 60 s): 6 workers, ~25 s of contention
#   tests/torture/run.sh --long [SECONDS]   default 600 s of contention
#
# P worker processes (tests/torture/torture.php) contend on ONE resource over 5 real
# lock nodes (tests/nodes.sh, in a PRIVATE state dir); meanwhile a fault injector pauses
# (SIGSTOP) / resumes lock nodes and kills them, restarting a killed node only after more
# than the lock TTL has passed (RedLock rule for nodes without persistence); never more
# than 2 of the 5 nodes are faulty at once. The AUX node holds the shared counter and the
# "occupied" marker. Ends with the figures and "N passed, N failed" (1 test); exit 0 on pass.
#
# Environment:
#   REDLOCK_SO          extension to test (default: <repo>/modules/redlock.so)
#   TORTURE_WORKERS     worker processes (default 6)
#   TORTURE_ITERATIONS  max acquisitions per worker (default: unbounded, time decides)
#   TORTURE_TTL         lock TTL in ms (default 1500)
#   TORTURE_NO_LOCK=1   skip the lock entirely: the run must then FAIL (lost updates,
#                       overlaps) -- proves the test can detect a broken lock
#   TORTURE_NO_FAULTS=1 no fault injection
#   TORTURE_SHARED_NODES=1  use the nodes of $REDLOCK_TEST_NODES / $REDLOCK_NODES_DIR
#                       instead of private ones (they are faulted, then restored)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nodes_sh="$root/tests/nodes.sh"

die() { echo "torture: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
usage() { echo "usage: $0 --short | --long [SECONDS]" >&2; exit 2; }

case "${1:-}" in
    --short) secs=25 ;;
    --long)
        secs=${2:-600}
        case "$secs" in ''|*[!0-9]*|0) usage ;; esac
        ;;
    *) usage ;;
esac

workers=${TORTURE_WORKERS:-6}
iterations=${TORTURE_ITERATIONS:-100000000}
ttl=${TORTURE_TTL:-1500}
so=${REDLOCK_SO:-$root/modules/redlock.so}
[ -f "$so" ] || die "extension not found: $so (bash scripts/build.sh, or set REDLOCK_SO)"
php=(php -n -d "extension=$so")
"${php[@]}" -r 'exit(extension_loaded("redlock") ? 0 : 1);' || die "cannot load $so"

work=$(mktemp -d /tmp/redlock-torture.XXXXXX)
out="$work/out"
mkdir -p "$out"
faults="$work/faults"
: >"$faults"
export TORTURE_RUN="run$$x$RANDOM" TORTURE_TTL=$ttl

shared=0
if [ "${TORTURE_SHARED_NODES:-0}" = 1 ]; then
    [ -n "${REDLOCK_TEST_NODES:-}" ] && [ -n "${REDLOCK_NODES_DIR:-}" ] ||
        die "TORTURE_SHARED_NODES=1 needs REDLOCK_TEST_NODES and REDLOCK_NODES_DIR"
    shared=1
else
    unset REDLOCK_TEST_NODES REDLOCK_TEST_AUX
    export REDLOCK_NODES_DIR="$work/nodes"
fi

worker_pids=()
injector_pid=
cleanup() {
    local p t
    [ -n "$injector_pid" ] && kill -TERM "$injector_pid" 2>/dev/null && wait "$injector_pid" 2>/dev/null
    # workers run under timeout(1): TERM is forwarded to the php child; KILL if it lingers
    for p in "${worker_pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for ((t = 0; t < 20; t++)); do
        local alive=0
        for p in "${worker_pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for p in "${worker_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    for p in "${worker_pids[@]}"; do wait "$p" 2>/dev/null; done
    if [ $shared = 1 ]; then
        local i n
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
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ $shared = 0 ]; then
    bash "$nodes_sh" start 5 >/dev/null || die "could not start the test nodes"
fi
set -a
. "$REDLOCK_NODES_DIR/env" || die "no $REDLOCK_NODES_DIR/env"
set +a
[ -n "${REDLOCK_TEST_AUX:-}" ] || die "no AUX node"
nnodes=$(cat "$REDLOCK_NODES_DIR/count")
[ "$nnodes" -eq 5 ] || die "needs 5 lock nodes, have $nnodes"
"${php[@]}" "$here/torture.php" reset || die "AUX node unreachable"

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# ---- fault injector -----------------------------------------------------------------
# Runs until $1 (epoch ms). State per node: up / paused / dead; at most 2 not up.
# Writes its counts to $faults after every change (key=value lines).
inject() {
    local end=$1 i now nf act
    local -a st since hold
    local pauses=0 kills=0 resumes=0 restarts=0 max_faulty=0
    trap 'exit 0' TERM
    for ((i = 1; i <= 5; i++)); do st[i]=up; since[i]=0; hold[i]=0; done
    write() {
        printf 'pause=%d\nkill=%d\nresume=%d\nrestart=%d\nmax_faulty_at_once=%d\n' \
            $pauses $kills $resumes $restarts $max_faulty >"$faults.tmp" && mv -f "$faults.tmp" "$faults"
    }
    ctl() { bash "$nodes_sh" "$1" "$2" >>"$work/injector.log" 2>&1; }
    heal() { # $1 = 1: wait for the TTL rule and heal everything
        local i now
        for ((i = 1; i <= 5; i++)); do
            now=$(now_ms)
            if [ "${st[i]}" = paused ] && { [ "$1" = 1 ] || [ $((now - since[i])) -ge "${hold[i]}" ]; }; then
                ctl resume "$i" && { st[i]=up; resumes=$((resumes + 1)); }
            elif [ "${st[i]}" = dead ]; then
                if [ "$1" = 1 ]; then
                    while [ $(( $(now_ms) - since[i] )) -le $((ttl + 250)) ]; do sleep 0.05; done
                fi
                # RedLock rule: a node without persistence rejoins only after the max TTL
                if [ $(( $(now_ms) - since[i] )) -gt $((ttl + 250)) ]; then
                    ctl restart "$i" && { st[i]=up; restarts=$((restarts + 1)); }
                fi
            fi
        done
    }
    while [ "$(now_ms)" -lt "$end" ]; do
        sleep "0.$(printf '%03d' $((100 + RANDOM % 400)))"
        heal 0
        nf=0
        for ((i = 1; i <= 5; i++)); do [ "${st[i]}" = up ] || nf=$((nf + 1)); done
        if [ $nf -lt 2 ] && [ $((RANDOM % 4)) -ne 0 ]; then
            i=$((1 + RANDOM % 5))
            if [ "${st[i]}" = up ]; then
                if [ $((RANDOM % 100)) -lt 60 ]; then
                    if ctl pause "$i"; then
                        st[i]=paused; pauses=$((pauses + 1))
                        hold[i]=$((100 + RANDOM % 1500))
                        since[i]=$(now_ms)
                    fi
                else
                    if ctl kill "$i"; then
                        st[i]=dead; kills=$((kills + 1))
                        since[i]=$(now_ms)   # taken after the process is gone
                    fi
                fi
            fi
        fi
        nf=0
        for ((i = 1; i <= 5; i++)); do [ "${st[i]}" = up ] || nf=$((nf + 1)); done
        [ $nf -gt $max_faulty ] && max_faulty=$nf
        write
    done
    heal 1
    write
}

# ---- run --------------------------------------------------------------------------
start_ms=$(now_ms)
end_s=$(( start_ms / 1000 + secs ))
echo "torture: $workers workers, ${secs} s, ttl $ttl ms, nodes $REDLOCK_TEST_NODES, aux $REDLOCK_TEST_AUX" \
    "${TORTURE_NO_LOCK:+(TORTURE_NO_LOCK=$TORTURE_NO_LOCK)}"
echo "$workers" >"$out/workers"
for ((w = 1; w <= workers; w++)); do
    # hard bound per worker: the deadline, plus the longest lock() wait, plus slack
    timeout -k 2 $((secs + 20)) "${php[@]}" "$here/torture.php" worker "$w" "$iterations" "$end_s" \
        "$out/worker-$w.json" >"$out/worker-$w.log" 2>&1 &
    worker_pids+=($!)
done
if [ "${TORTURE_NO_FAULTS:-0}" != 1 ]; then
    # stop injecting ~2 s before the workers stop, so that the final heal happens under load
    inject $(( end_s * 1000 - 2000 )) &
    injector_pid=$!
fi

for ((w = 1; w <= workers; w++)); do
    wait "${worker_pids[w - 1]}"
    echo "$w $?" >>"$out/exit-codes"
done
worker_pids=()
if [ -n "$injector_pid" ]; then
    wait "$injector_pid"
    injector_pid=
fi
wall=$(( $(now_ms) - start_ms ))
for ((w = 1; w <= workers; w++)); do
    if [ -s "$out/worker-$w.log" ]; then
        echo "--- worker $w output:"; head -n 20 "$out/worker-$w.log"
    fi
done
"${php[@]}" "$here/torture.php" check "$out" "$faults" "$wall"
rc=$?
if [ "${TORTURE_NO_FAULTS:-0}" != 1 ] && [ -s "$work/injector.log" ]; then
    grep -v '^$' "$work/injector.log" | head -n 5 | sed 's/^/injector: /'
fi
exit $rc
