#!/usr/bin/env bash
# run.sh -- the randomized fault run: mutual exclusion of lock() under a seeded schedule of
# empty restarts (up to N - q = 2 nodes within one grace), pauses, partitions, clock steps and
# deleted keys, with the restart check at its default (restart_grace 'auto').
#
#   tests/harness/faultrun/run.sh --short [--seed S]            60 s of faults (<= 90 s in all; scripts/test.sh)
#   tests/harness/faultrun/run.sh --long SECONDS [--seed S]     the same for SECONDS
#
# 5 lock nodes (in network namespaces when root can make them: tests/harness/netfault/net.sh; else on
# loopback, without partitions) run under tests/restart/clockshift.c (a clock step is a write to
# its offset file), an AUX node on loopback keeps the counters. 6 worker processes
# (faultrun.php worker): 2 "short" (TTLs 300-1500 ms, mostly a new RedLock per call, as FPM
# requests), 2 "solo" (the same, and one-node RedLock calls on the same servers between them),
# 2 "long" (the holds the injector asks for, each in a new process: TTL 4-9 s, 5-9 s with
# --short, held to shortly before the end of the validity, never extended). The injector
# (faultrun.php inject, seeded: the seed is printed and --seed S repeats the schedule; the
# timing is the machine's) runs scenario rounds, each with its parameters at random: a long
# hold on a bare quorum (the other nodes cut off by a partition, or taken by a competing
# attempt), then empty restarts of 1 or 2 of its nodes within one grace, and a slow node
# (paused or cut off) among the rest; between and during rounds, background faults at random.
# Limits it keeps: at most 2 nodes unreachable at once by pauses/partitions of the background,
# and at most N - q = 2 nodes whose data may lack a valid lock (restarted, clock stepped, a key
# deleted) within the longest TTL + 2.5 s; a key is deleted only on a node whose value stays on
# a quorum without it; a clock step is made while the node is paused for more than a second.
# The check (faultrun.php check): no two holds of a resource overlap (each hold: from when
# lock() returned to release() or to its validity's end, hrtime on CLOCK_MONOTONIC, shared by
# the processes of the host), no lost update of the resource's counter on AUX, every worker ran
# and reported, and the run had long holds, restarts and rounds. Ends with
# "faultrun: N passed, N failed, N skipped" (a fault kind this machine cannot make is a skip).
#
# Environment: REDLOCK_SO (default <repo>/modules/redlock.so), FAULTRUN_SEED (as --seed),
# FAULTRUN_NO_NETNS=1 (loopback nodes even as root), FAULTRUN_KEEP=1 (keep the work dir: the
# injector's events.log, the workers' holds-W.log), FR_LONG_TTL / FR_SHORT_TTL (the long holds' and
# the short workers' TTL range in ms, "lo-hi"; defaults 4000-9000, 5000-9000 with --short, and
# 300-1500), FAULTRUN_DIAG=1 (after each lock() every node's value of the key is read and shown
# with an overlap: t its token, o another, - none, ? no answer).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
so=${REDLOCK_SO:-$root/modules/redlock.so}
secs="" seed=${FAULTRUN_SEED:-} form=
while [ $# -gt 0 ]; do
    case "$1" in
        --short) secs=60 form=--short; export FR_LONG_TTL=${FR_LONG_TTL:-5000-9000} ;;
        --long) secs=${2:-} form="--long ${2:-}"; shift ;;
        --seed) seed=${2:-}; shift ;;
        *) secs="" ; break ;;
    esac
    shift
done
case "$secs" in ''|*[!0-9]*|0) echo "usage: $0 --short | --long SECONDS [--seed S]" >&2; exit 2 ;; esac
[ -n "$seed" ] || seed=$(( $(od -An -N4 -tu4 /dev/urandom) % 1000000 ))
case "$seed" in *[!0-9]*) echo "faultrun: the seed is a number" >&2; exit 2 ;; esac
passed=0 failed=0 skipped=0
finish() { echo "faultrun: $passed passed, $failed failed, $skipped skipped"; }
fail_setup() { echo "FAIL setup: $*"; failed=$((failed + 1)); finish; exit 1; }
php=(php -n -d "extension=$so" -d extension=posix)
"${php[@]}" -r 'exit(extension_loaded("redlock") && function_exists("posix_kill") ? 0 : 1);' ||
    fail_setup "cannot load $so and posix into php"

work=$(mktemp -d /tmp/redlock-faultrun.XXXXXX)
export REDLOCK_NODES_DIR="$work/nodes"
nodes_sh="$root/tests/nodes.sh"
netns=0 pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null; kill -TERM "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    [ $netns = 1 ] && nf_down
    bash "$nodes_sh" stop >/dev/null 2>&1
    if [ "${FAULTRUN_KEEP:-0}" = 1 ]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "faultrun: seed $seed, ${secs} s (repeat the schedule: tests/harness/faultrun/run.sh $form --seed $seed)"
# nodes: in network namespaces when possible (partitions), else on loopback
# shellcheck source=../netfault/net.sh
. "$root/tests/harness/netfault/net.sh"
if [ "${FAULTRUN_NO_NETNS:-0}" != 1 ] && nf_can_run; then
    netns=1
    nf_up >"$work/nf_up.log" 2>&1 || fail_setup "net.sh nf_up: $(tail -n 3 "$work/nf_up.log")"
    bash "$nodes_sh" start 1 >/dev/null || fail_setup "tests/nodes.sh start (the AUX node)"
    bash "$nodes_sh" kill 1 >/dev/null   # (only its AUX node is used)
    export FR_NODES="$NF_NODES" FR_NS="$NF_NS" FR_NODEDIR="$NF_DIR"
    FR_PIDFILES=$(for k in 1 2 3 4 5; do printf '%s/redis-%d.pid,' "$NF_DIR" "$k"; done)
else
    why=${nf_skip_why:-FAULTRUN_NO_NETNS=1}
    [ "${FAULTRUN_NO_NETNS:-0}" = 1 ] && why="FAULTRUN_NO_NETNS=1"
    echo "SKIP partitions: $why (the nodes run on loopback)"
    skipped=$((skipped + 1))
    bash "$nodes_sh" start 5 >/dev/null || fail_setup "tests/nodes.sh start 5"
    FR_NODES=$(sed -n 's/^REDLOCK_TEST_NODES=//p' "$REDLOCK_NODES_DIR/env" | tr -d "'\"")
    export FR_NODES FR_NS="" FR_NODEDIR="$REDLOCK_NODES_DIR"
    FR_PIDFILES=$(for k in 1 2 3 4 5; do printf '%s/node%d.pid,' "$REDLOCK_NODES_DIR" "$k"; done)
fi
FR_AUX=$(sed -n 's/^REDLOCK_TEST_AUX=//p' "$REDLOCK_NODES_DIR/env" | tr -d "'\"")
export FR_SO="$so" REDLOCK_TEST_AUX="$FR_AUX" FR_PIDFILES="${FR_PIDFILES%,}" FR_DIR="$work" FR_SEED="$seed" FR_RUN="$$x$RANDOM" FR_WORKERS=6
# the clock-shifting library (a C compiler is needed to build it)
export FR_CLOCKSO=""
if cc -shared -fPIC -O1 -o "$work/clockshift.so" "$root/tests/restart/clockshift.c" -ldl 2>"$work/cc.log"; then
    FR_CLOCKSO="$work/clockshift.so"
else
    echo "SKIP clock steps: cannot build tests/restart/clockshift.c ($(head -n 1 "$work/cc.log"))"
    skipped=$((skipped + 1))
fi
"${php[@]}" "$here/faultrun.php" nodes-up || fail_setup "the nodes under the clock library"
echo "nodes: $FR_NODES$( [ $netns = 1 ] && echo " (network namespaces)"), aux $FR_AUX," \
    "restart_grace $("${php[@]}" -r 'echo ini_get("redlock.restart_grace");') (the default)"

# ---- the run ------------------------------------------------------------------------------
start=$(date +%s)
export FR_END=$(( start + secs ))
kinds=(short short solo solo long long)
for w in 1 2 3 4 5 6; do
    timeout -k 2 $((secs + 30)) "${php[@]}" "$here/faultrun.php" worker "$w" "${kinds[w - 1]}" >"$work/worker-$w.out" 2>&1 &
    pids+=($!)
done
timeout -k 2 $((secs + 30)) "${php[@]}" "$here/faultrun.php" inject >"$work/inject.out" 2>&1 &
inj=$!
pids+=("$inj")
for p in "${pids[@]}"; do wait "$p"; done
pids=()
for w in 1 2 3 4 5 6; do
    [ -s "$work/worker-$w.out" ] && { echo "--- worker $w:"; head -n 10 "$work/worker-$w.out"; }
done
[ -s "$work/inject.out" ] && { echo "--- injector:"; head -n 10 "$work/inject.out"; }
"${php[@]}" "$here/faultrun.php" check | tee "$work/check.out"
p=$(grep -c '^PASS ' "$work/check.out"); f=$(grep -c '^FAIL ' "$work/check.out")
passed=$((passed + p)); failed=$((failed + f))
[ $((p + f)) -gt 0 ] || failed=$((failed + 1))
echo "wall: $(( $(date +%s) - start )) s of run"
if [ $failed -gt 0 ]; then
    echo "the injector's events: $(wc -l <"$work/events.log") lines; repeat: tests/harness/faultrun/run.sh $form --seed $seed"
fi
finish
[ $failed -eq 0 ]
