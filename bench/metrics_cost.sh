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
#   - without valgrind: cycles/s of --wall-cycles cycles, and the CPU time
#     (user + sys) per cycle of that run (steadier than the wall clock on a busy machine).
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
cps() { # php-args -> "cycles/s CPU-µs/cycle"
    local TIMEFORMAT='%U %S'
    # shellcheck disable=SC2086
    { time timeout 300 php -n $1 "$here/impl/ext.php" --nodes="$REDLOCK_TEST_NODES" --cycles="$wall_cycles" \
        --seconds=120 --warmup=50 --no-lat >"$work/run.json"; } 2>"$work/time.txt"
    php -r '$j = json_decode(file_get_contents($argv[1]), true);
        if (!$j["ok"] || $j["failed"]) { fwrite(STDERR, "failed cycles\n"); exit(1); }
        [$u, $s] = array_map("floatval", preg_split("/\s+/", trim(file_get_contents($argv[2]))));
        printf("%.0f %.2f\n", $j["cycles"] / $j["wall_s"], ($u + $s) * 1e6 / ($j["cycles"] + 50));' \
        "$work/run.json" "$work/time.txt"
}

for ((r = 1; r <= runs; r++)); do
    for i in "${!labels[@]}"; do
        a=$(ir "${args[$i]}" 20)
        b=$(ir "${args[$i]}" $((20 + cycles)))
        echo $(((b - a) / cycles)) >>"$work/ir.$i"
        read -r c u < <(cps "${args[$i]}")
        echo "$c" >>"$work/cps.$i"
        echo "$u" >>"$work/cpu.$i"
    done
    echo "metrics_cost: run $r of $runs done" >&2
done

median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-10s %10s %10s %12s   (medians of %d runs; Ir: %s cycles, cycles/s and CPU: %s)\n' setting "Ir/cycle" \
    "cycles/s" "CPU µs/cycle" "$runs" "$cycles" "$wall_cycles"
for i in "${!labels[@]}"; do
    printf '%-10s %10s %10s %12s   Ir: %s\n' "${labels[$i]}" "$(median "$work/ir.$i")" "$(median "$work/cps.$i")" \
        "$(median "$work/cpu.$i")" "$(tr '\n' ' ' <"$work/ir.$i")"
done
ratio() { # label index-a index-b
    awk -v l="$1" -v a="$(median "$work/ir.$2")" -v b="$(median "$work/ir.$3")" -v c="$(median "$work/cps.$2")" \
        -v d="$(median "$work/cps.$3")" -v e="$(median "$work/cpu.$2")" -v f="$(median "$work/cpu.$3")" \
        'BEGIN {printf "%s: instructions %+.2f%%, cycles/s %+.2f%%, CPU time %+.2f%%\n", l, (a / b - 1) * 100,
                (c / d - 1) * 100, (e / f - 1) * 100}'
}
ratio "metrics=1 vs metrics=0" 0 1
[ -n "$base" ] && ratio "metrics=1 vs base     " 0 2
exit 0
