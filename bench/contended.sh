#!/usr/bin/env bash
# bench/contended.sh — many processes on ONE resource, with a waiting acquire:
# this extension waking on release, its own polling mode, and the peers' blocking
# APIs, side by side in one run on 5 loopback nodes it starts itself.
#
#   bash bench/contended.sh [--short] [--impls ext,ext_fair,ext_poll,symfony,laravel]
#        [--burst N] [--steady-procs N] [--seconds S] [--hold-us US] [--think-us US]
#        [--ext PATH/redlock.so] [--out DIR] [--scaling] [--no-scenarios]
#
# Burst: N (50) processes start together, each lock(wait) once, hold 1 ms, release, exit:
#   time until all are served (vs ideal = N x (hold + uncontended lock+release)),
#   p50/p99 latency per request.
# Steady: 8 processes loop lock(wait) / 1 ms / release / 5 ms elsewhere for S (10) s:
#   acquisitions/s vs ideal = 1 / (hold + uncontended lock+release), handoff latency
#   (release() returning -> another process's lock() returning), share of handoffs to
#   another process, fairness (min/max acquisitions per process), timeouts, overlaps.
# Both count the Redis commands processed per acquisition (script calls included).
# --scaling: nodes 1/3/5/7/9 x processes 1/2/4/8/16, uncontended (distinct resources)
#   and contended (the steady loop), ext only; data and plot in OUT/scaling.*.
# --short (the test command): burst of 20, steady 4 processes for 2 s, ext and
#   ext_poll and ext_fair only; exit 0 whatever the figures, non-zero only on a crash or overlap.
# Output: a table on stdout, OUT/contended.json, OUT/contended/ (raw). OUT: bench/out.
set -u
set -o pipefail
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
PHP=${PHP:-php}
SHORT=0 SCALING=0 SCENARIOS=1
IMPLS="" BURST="" SPROCS="" SECS="" HOLD=1000 THINK=5000
EXT_SO=${REDLOCK_SO:-}
OUT="$BENCH/out"
while [ $# -gt 0 ]; do
    case "$1" in
        --short) SHORT=1 ;;
        --impls) IMPLS=$2; shift ;;
        --burst) BURST=$2; shift ;;
        --steady-procs) SPROCS=$2; shift ;;
        --seconds) SECS=$2; shift ;;
        --hold-us) HOLD=$2; shift ;;
        --think-us) THINK=$2; shift ;;
        --ext) EXT_SO=$2; shift ;;
        --out) OUT=$2; shift ;;
        --scaling) SCALING=1 ;;
        --no-scenarios) SCENARIOS=0 ;;
        -h|--help) sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
        *) echo "contended.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
if [ $SHORT = 1 ]; then
    : "${IMPLS:=ext,ext_poll,ext_fair}" "${BURST:=20}" "${SPROCS:=4}" "${SECS:=2}"
else
    : "${IMPLS:=ext,ext_fair,ext_poll,symfony,laravel}" "${BURST:=50}" "${SPROCS:=8}" "${SECS:=10}"
fi
if [ -z "$EXT_SO" ]; then
    EXT_SO="$REPO/modules/redlock.so"
fi
[ -f "$EXT_SO" ] || { echo "contended: no extension at $EXT_SO (bash scripts/build.sh, or --ext)" >&2; exit 1; }
EXT_SO=$(cd "$(dirname "$EXT_SO")" && pwd)/$(basename "$EXT_SO")
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
RUN=$(mktemp -d /tmp/redlock-contended.XXXXXX) || exit 1
W="$RUN/raw"
mkdir -p "$W"
export REDLOCK_NODES_DIR="$RUN/nodes"
NODES_UP=0
cleanup() {
    [ $NODES_UP = 1 ] && bash "$REPO/tests/nodes.sh" stop >/dev/null 2>&1
    NODES_UP=0
}
trap 'cleanup; rm -rf "$RUN"' EXIT
trap 'exit 130' INT TERM

NN=5
[ $SCALING = 1 ] && NN=9
bash "$REPO/tests/nodes.sh" start $NN >"$RUN/nodes.txt" 2>&1 || { cat "$RUN/nodes.txt" >&2; exit 1; }
NODES_UP=1
# shellcheck disable=SC1091
. "$REDLOCK_NODES_DIR/env"
IFS=, read -r -a NODE <<<"$REDLOCK_TEST_NODES"
FIVE=$(IFS=,; echo "${NODE[*]:0:5}")

worker_run() {   # impl, outfile, args...
    local impl=$1 out=$2
    shift 2
    case "$impl" in
        ext|ext_poll|ext_fair) timeout 300 "$PHP" -n -d "extension=$EXT_SO" "$BENCH/impl/contended.php" --impl="$impl" "$@" >"$out" 2>"$out.err" ;;
        *) timeout 300 "$PHP" "$BENCH/impl/contended.php" --impl="$impl" "$@" >"$out" 2>"$out.err" ;;
    esac
}

cmds_total() {   # "commands cpu_s" of the nodes of $1 (comma list)
    "$PHP" "$BENCH/tools/cmds.php" "$1"
}

CRASH=0
scenario() {   # name impl procs nodes extra-args...
    local sc=$1 impl=$2 procs=$3 nodes=$4 start pids=() k c0 c1 p
    shift 4
    start=$("$PHP" -r 'printf("%.3f", microtime(true) + 2.0 + '"$procs"' * 0.1);')
    local linger="$RUN/linger.$sc.$impl"
    rm -f "$linger"
    for ((k = 1; k <= procs; k++)); do
        worker_run "$impl" "$W/${sc}_${impl}_$k.json" --nodes="$nodes" --resource="bench:c:$sc:$impl:$$" \
            --start-at="$start" --hold-us="$HOLD" --think-us="$THINK" --linger="$linger" "$@" &
        pids+=($!)
    done
    # the warm-up (one uncontended cycle per process, before the start) is not counted
    "$PHP" -r '$d = '"$start"' - microtime(true) - 0.1; if ($d > 0) usleep((int)($d * 1e6));'
    c0=$(cmds_total "$nodes")
    # every process printed its figures: let them go (an exiting CLI process burns CPU
    # the next holder needs; an FPM worker's request end does not exit the process)
    "$PHP" -r '$end = microtime(true) + 290; $ok = false;
        while (microtime(true) < $end) { $ok = true;
            foreach (array_slice($argv, 1) as $f) { if (!str_ends_with(trim((string)@file_get_contents($f)), "}")) { $ok = false; break; } }
            if ($ok) break; usleep(100000); }' $(for ((k = 1; k <= procs; k++)); do echo "$W/${sc}_${impl}_$k.json"; done)
    c1=$(cmds_total "$nodes")
    touch "$linger"
    for p in "${pids[@]}"; do
        wait "$p" || { echo "contended: a $impl process failed ($sc)" >&2; CRASH=1; }
    done
    echo $((${c1% *} - ${c0% *})) >"$W/cmds_${sc}_$impl.txt"
    "$PHP" -r 'printf("%.3f\n", $argv[2] - $argv[1]);' "${c0#* }" "${c1#* }" >"$W/rcpu_${sc}_$impl.txt"
    echo "contended: $sc $impl: $((${c1% *} - ${c0% *})) commands, redis cpu $(cat "$W/rcpu_${sc}_$impl.txt") s" >&2
    echo "$start" >"$W/start_${sc}_$impl.txt"
}

IFS=, read -r -a IMPL_LIST <<<"$IMPLS"
if [ $SCENARIOS = 1 ]; then
    echo "contended: uncontended baseline" >&2
    c0=$(cmds_total "$FIVE")
    worker_run ext "$W/unc.json" --nodes="$FIVE" --resource="bench:u:$$" --uncontended=300 --hold-us="$HOLD" || CRASH=1
    c1=$(cmds_total "$FIVE")
    "$PHP" -r 'printf("%.3f\n", $argv[2] - $argv[1]);' "${c0#* }" "${c1#* }" >"$W/rcpu_unc.txt"
    for impl in "${IMPL_LIST[@]}"; do
        echo "contended: burst of $BURST, $impl" >&2
        scenario burst "$impl" "$BURST" "$FIVE" --once --wait-ms=60000
        echo "contended: steady, $SPROCS processes, ${SECS}s, $impl" >&2
        scenario steady "$impl" "$SPROCS" "$FIVE" --seconds="$SECS" --wait-ms=10000
    done
    "$PHP" -r '
        $m = ["impls" => explode(",", $argv[1]), "burst_procs" => (int)$argv[2], "steady_procs" => (int)$argv[3],
              "steady_seconds" => (float)$argv[4], "hold_us" => (int)$argv[5], "think_us" => (int)$argv[6],
              "nodes" => 5, "notes" => ["php-lock (php-lock/lock, malkusch/lock) is not on the reachable Packagist mirror: not benchmarked"]];
        foreach (glob($argv[7] . "/start_burst_*.txt") as $f) {
            $m["burst_start_us"][substr(basename($f, ".txt"), 12)] = (float)file_get_contents($f) * 1e6
                - (microtime(true) * 1e6 - hrtime(true) / 1e3);
        }
        file_put_contents($argv[7] . "/meta.json", json_encode($m));' \
        "$IMPLS" "$BURST" "$SPROCS" "$SECS" "$HOLD" "$THINK" "$W"
    "$PHP" "$BENCH/contended_report.php" "$W" || CRASH=1
fi

if [ $SCALING = 1 ]; then
    SC="$W/scaling"
    mkdir -p "$SC"
    echo "# nodes procs uncontended_cycles_per_s uncontended_p50_us contended_acq_per_s contended_handoff_p50_us contended_cmds_per_acq" >"$SC/scaling.dat"
    for nn in 1 3 5 7 9; do
        list=$(IFS=,; echo "${NODE[*]:0:$nn}")
        for pp in 1 2 4 8 16; do
            echo "contended: scaling $nn nodes, $pp processes" >&2
            # uncontended: each process its own resources, as many cycles as it can in 1.5 s
            start=$("$PHP" -r 'printf("%.3f", microtime(true) + 1.0 + '"$pp"' * 0.05);')
            pids=()
            for ((k = 1; k <= pp; k++)); do
                timeout 120 "$PHP" -n -d "extension=$EXT_SO" "$BENCH/impl/ext.php" --nodes="$list" --cycles=10000000 \
                    --seconds=1.5 --warmup=20 --start-at="$start" >"$SC/u_${nn}_${pp}_$k.json" 2>/dev/null &
                pids+=($!)
            done
            for p in "${pids[@]}"; do
                # impl/ext.php does not catch: a QuorumException (timeouts of an overloaded
                # machine) ends that process; its cycles are missing from the sum
                wait "$p" || echo "contended: scaling: an uncontended process ended with an error ($nn nodes, $pp processes): $(head -c 300 "$SC/u_${nn}_${pp}_"*.json 2>/dev/null | grep -m1 -o 'Uncaught [A-Za-z\\]*: [^(]*')" >&2
            done
            # contended: the steady loop on one resource
            rm -f "$W"/steadyscale_ext_*.json
            scenario steadyscale ext "$pp" "$list" --seconds=1.5 --wait-ms=10000 2>/dev/null
            "$PHP" -r '
                $u = 0; $lat = [];
                foreach (glob($argv[1] . "/u_" . $argv[2] . "_" . $argv[3] . "_*.json") as $f) {
                    $j = json_decode(file_get_contents($f), true);
                    if (!$j || empty($j["cycles"])) continue;
                    $u += $j["cycles"] / $j["wall_s"];
                    $lat = array_merge($lat, $j["lat_us"]);
                }
                sort($lat);
                $ev = []; $per = [];
                foreach (glob($argv[4] . "/steadyscale_ext_*.json") as $f) {
                    $j = json_decode(file_get_contents($f), true);
                    foreach ($j["events"] ?? [] as $e) { $ev[] = $e; }
                }
                usort($ev, fn($a, $b) => $a[1] <=> $b[1]);
                $h = [];
                for ($i = 0; $i + 1 < count($ev); $i++) {
                    if ($ev[$i + 1][0] < $ev[$i][3]) $h[] = max(0, $ev[$i + 1][1] - $ev[$i][3]);
                }
                sort($h);
                $span = $ev ? (max(array_column($ev, 3)) - min(array_column($ev, 0))) / 1e6 : 1;
                $cmds = (int)@file_get_contents($argv[4] . "/cmds_steadyscale_ext.txt");
                printf("%d %d %.1f %d %.1f %d %.1f\n", $argv[2], $argv[3], $u, $lat ? $lat[intdiv(count($lat), 2)] : 0,
                    count($ev) / max(1e-6, $span), $h ? $h[intdiv(count($h), 2)] : 0, $ev ? $cmds / count($ev) : 0);
            ' "$SC" "$nn" "$pp" "$W" >>"$SC/scaling.dat"
        done
    done
    cp "$SC/scaling.dat" "$OUT/scaling.dat"
    cat "$OUT/scaling.dat"
    if command -v gnuplot >/dev/null; then
        cat >"$OUT/scaling.gp" <<EOF
set terminal pngcairo size 1100,420 font ",10"
set output "$OUT/scaling.png"
set multiplot layout 1,2
set key left top
set xlabel "processes"
set logscale x 2
set title "uncontended: lock+release cycles/s (all processes)"
plot for [n in "1 3 5 7 9"] "$OUT/scaling.dat" using 2:(\$1==n+0 ? \$3 : 1/0) with linespoints title n." nodes"
set title "contended (one resource, 1 ms held): acquisitions/s"
plot for [n in "1 3 5 7 9"] "$OUT/scaling.dat" using 2:(\$1==n+0 ? \$5 : 1/0) with linespoints title n." nodes"
unset multiplot
EOF
        gnuplot "$OUT/scaling.gp" 2>"$W/gnuplot.err" || echo "contended: gnuplot failed (see raw/gnuplot.err)" >&2
    fi
fi

cleanup
if [ -f "$W/contended.json" ]; then cp "$W/contended.json" "$OUT/contended.json"; fi
rm -rf "$OUT/contended" && cp -a "$W" "$OUT/contended"
if [ $CRASH = 1 ]; then
    echo "contended: a process crashed" >&2
    exit 1
fi
if [ -f "$OUT/contended.json" ] && "$PHP" -r '$j = json_decode(file_get_contents($argv[1]), true);
    foreach (["burst", "steady"] as $s) foreach ($j[$s] ?? [] as $r) if (($r["overlaps"] ?? 0) > 0) exit(1);' "$OUT/contended.json"; then :; else
    [ -f "$OUT/contended.json" ] && { echo "contended: OVERLAPS: two processes held the lock at once" >&2; exit 1; }
fi
exit 0
