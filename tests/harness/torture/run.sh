#!/usr/bin/env bash
# run.sh -- mutual-exclusion torture test of the redlock extension under node faults.
#
#   tests/harness/torture/run.sh --short            bounded (<= 60 s): 6 workers, ~25 s of contention
#   tests/harness/torture/run.sh --long [SECONDS]   default 600 s of contention
#
# P worker processes (tests/harness/torture/torture.php) contend on ONE resource over 5 real
# lock nodes (tests/nodes.sh, in a PRIVATE state dir); meanwhile a fault injector pauses
# (SIGSTOP) / resumes lock nodes and kills them, restarting a killed node only after more
# than the lock TTL has passed (RedLock rule for nodes without persistence); never more
# than 2 of the 5 nodes are faulty at once. The AUX node holds the shared counter and the
# "occupied" marker. Ends with the figures and "N passed, N failed" (1 test); exit 0 on pass.
# The check (torture.php check) requires, besides no lost update and no overlap: that
# faults were injected (at least one pause and one kill, each healed, and seen by the
# clients as timeouts and errors) unless TORTURE_NO_FAULTS=1; that no lock was invalid at
# entry or expired in the critical section; and liveness: no gap between two acquisitions
# (or from the start / to the end) longer than 3 x TTL + 1 s.
# Arguments, extension check, nodes and worker start/stop: tests/harness/torture/common.sh.
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

tag=torture
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"
setup 25 "$@"

workers=${TORTURE_WORKERS:-6}
iterations=${TORTURE_ITERATIONS:-100000000}
ttl=${TORTURE_TTL:-1500}
out="$work/out"
mkdir -p "$out"
faults="$work/faults"
: >"$faults"
export TORTURE_RUN="run$$x$RANDOM" TORTURE_TTL=$ttl

if [ "${TORTURE_SHARED_NODES:-0}" = 1 ]; then
    if [ -z "${REDLOCK_TEST_NODES:-}" ] || [ -z "${REDLOCK_NODES_DIR:-}" ]; then
        die "TORTURE_SHARED_NODES=1 needs REDLOCK_TEST_NODES and REDLOCK_NODES_DIR"
    fi
    shared=1
else
    private_nodes
fi

nodes_up
nnodes=$(cat "$REDLOCK_NODES_DIR/count")
[ "$nnodes" -eq 5 ] || die "needs 5 lock nodes, have $nnodes"
"${php[@]}" "$here/torture.php" reset || die "AUX node unreachable"

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# ---- fault injector -----------------------------------------------------------------
# Runs until $1 (epoch ms). State per node: up / paused / dead / grace; at most 2 not up.
# A node restarted empty is out of the quorum for its grace (docs/api.md "Restarted nodes":
# the longest TTL plus the drift, counted from an uptime known to 1 s), so it counts as
# faulty until then ("grace"): otherwise 2 faults beside it leave no quorum, and the
# liveness bound below did not hold (a CI-style run: 7.6 s without an acquisition).
# Writes its counts to $faults after every change (key=value lines).
inject() {
    local end=$1 i nf
    local -a st since hold
    # the restart grace 'auto': ttl + drift (1 %) + 2 ms, plus the 1 s uptime margin
    local grace_ms=$((ttl + ttl / 100 + 2 + 1000))
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
                    ctl restart "$i" && { st[i]=grace; since[i]=$(now_ms); restarts=$((restarts + 1)); }
                fi
            elif [ "${st[i]}" = grace ] && [ $(( $(now_ms) - since[i] )) -gt $((grace_ms + 250)) ]; then
                st[i]=up
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
                # the first fault is a pause, the second a kill (the check requires both
                # kinds: a run where the dice gave only one proves less), then 60/40
                if [ $pauses -eq 0 ] || { [ $kills -gt 0 ] && [ $((RANDOM % 100)) -lt 60 ]; }; then
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
    start_worker "$w" "$iterations" "$end_s" "$out/worker-$w.json"
done
if [ "${TORTURE_NO_FAULTS:-0}" != 1 ]; then
    # stop injecting ~2 s before the workers stop, so that the final heal happens under load
    inject $(( end_s * 1000 - 2000 )) &
    injector_pid=$!
fi

wait_run
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
