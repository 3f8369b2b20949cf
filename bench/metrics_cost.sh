#!/usr/bin/env bash
# bench/metrics_cost.sh -- what the pool-wide metrics (RedLock::metrics()) cost an uncontended lock+release cycle.
#
#   bash bench/metrics_cost.sh [--ext SO] [--base SO] [--runs R] [--cycles N] [--wall-cycles N]
#
# The same extension with -d redlock.metrics=1 (the shared table) and =0 (a
# table of this process: the same updates, no shared memory), and, with
# --base, another build (e.g. one without the metrics code) for the cost of the
# updates themselves. Each run of each setting, interleaved:
#   - callgrind: instructions of the client process per cycle,
#     (Ir(20 + N cycles) - Ir(20 cycles)) / N (bench/impl/ext.php, 5 nodes, retry_count 0);
#   - wall clock: cycles/s of --wall-cycles cycles (no valgrind).
# Prints the median of the runs per setting and the ratios to metrics=0 (and to
# the base). Own nodes (tests/nodes.sh, bench/out/metrics-nodes), stopped on exit;
# loopback only; every run bounded by timeout(1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
ext="$root/modules/redlock.so"
base=""
runs=5
cycles=1000
wall_cycles=20000
while [ $# -gt 0 ]; do
    case "$1" in
        --ext) ext=$2; shift ;;
        --base) base=$2; shift ;;
        --runs) runs=$2; shift ;;
        --cycles) cycles=$2; shift ;;
        --wall-cycles) wall_cycles=$2; shift ;;
        *) echo "usage: $0 [--ext SO] [--base SO] [--runs R] [--cycles N] [--wall-cycles N]" >&2; exit 2 ;;
    esac
    shift
done
[ -f "$ext" ] || { echo "metrics_cost: $ext not built (bash scripts/build.sh)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "metrics_cost: valgrind not installed (bash bench/deps.sh)" >&2; exit 2; }

work=$(mktemp -d /tmp/redlock-metrics-cost.XXXXXX)
export REDLOCK_NODES_DIR="$here/out/metrics-nodes"
cleanup() { bash "$root/tests/nodes.sh" stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
bash "$root/tests/nodes.sh" start 5 >/dev/null
set -a; . "$REDLOCK_NODES_DIR/env"; set +a

# settings: label and php arguments
labels=("metrics=1" "metrics=0")
args=("-d extension=$ext -d redlock.metrics=1" "-d extension=$ext -d redlock.metrics=0")
if [ -n "$base" ]; then
    labels+=("base")
    args+=("-d extension=$base")
fi

ir() { # php-args cycles -> total Ir of the process
    local f="$work/cg.out"
    # shellcheck disable=SC2086
    timeout 600 valgrind --tool=callgrind --callgrind-out-file="$f" php -n $1 "$here/impl/ext.php" \
        --nodes="$REDLOCK_TEST_NODES" --cycles="$2" --seconds=600 --warmup=10 --no-lat >/dev/null 2>"$work/cg.log" ||
        { echo "metrics_cost: callgrind failed:" >&2; tail -5 "$work/cg.log" >&2; exit 1; }
    sed -n 's/^summary: *//p; s/^totals: *//p' "$f" | head -1 | awk '{print $1}'
}
cps() { # php-args -> cycles per second
    # shellcheck disable=SC2086
    timeout 300 php -n $1 "$here/impl/ext.php" --nodes="$REDLOCK_TEST_NODES" --cycles="$wall_cycles" --seconds=120 \
        --warmup=50 --no-lat | php -r '$j = json_decode(stream_get_contents(STDIN), true);
            if (!$j["ok"] || $j["failed"]) { fwrite(STDERR, "failed cycles\n"); exit(1); }
            printf("%.0f\n", $j["cycles"] / $j["wall_s"]);'
}

for ((r = 1; r <= runs; r++)); do
    for i in "${!labels[@]}"; do
        a=$(ir "${args[$i]}" 20)
        b=$(ir "${args[$i]}" $((20 + cycles)))
        echo $(((b - a) / cycles)) >>"$work/ir.$i"
        cps "${args[$i]}" >>"$work/cps.$i"
    done
    echo "metrics_cost: run $r of $runs done" >&2
done

median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
printf '%-10s %14s %12s   (medians of %d runs; Ir runs: %s)\n' setting "Ir/cycle" "cycles/s" "$runs" "$cycles cycles"
for i in "${!labels[@]}"; do
    printf '%-10s %14s %12s   Ir: %s\n' "${labels[$i]}" "$(median "$work/ir.$i")" "$(median "$work/cps.$i")" \
        "$(tr '\n' ' ' <"$work/ir.$i")"
done
on_ir=$(median "$work/ir.0"); off_ir=$(median "$work/ir.1")
on_cps=$(median "$work/cps.0"); off_cps=$(median "$work/cps.1")
awk -v a="$on_ir" -v b="$off_ir" -v c="$on_cps" -v d="$off_cps" \
    'BEGIN {printf "metrics=1 vs metrics=0: instructions %+.2f%%, cycles/s %+.2f%%\n", (a / b - 1) * 100, (c / d - 1) * 100}'
if [ -n "$base" ]; then
    base_ir=$(median "$work/ir.2"); base_cps=$(median "$work/cps.2")
    awk -v a="$on_ir" -v b="$base_ir" -v c="$on_cps" -v d="$base_cps" \
        'BEGIN {printf "metrics=1 vs base:      instructions %+.2f%%, cycles/s %+.2f%%\n", (a / b - 1) * 100, (c / d - 1) * 100}'
fi
