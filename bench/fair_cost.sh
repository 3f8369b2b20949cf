#!/usr/bin/env bash
# bench/fair_cost.sh — what fair waiting costs a lock that nobody contends: every acquire
# script now checks for a fair queue (one EXISTS), and the attempt without the restart
# check (restart_grace => 0) is that script instead of a bare SET NX. The extension as
# built ("new") side by side with a private build of the tree before fair waiting
# ("old": the parent of the commit that added tests/fair/, or --base REV), alternating
# runs on the same 5 loopback nodes, for restart_grace 'auto' (the default) and 0:
# client lock+release latency (median, p99), the servers' own time per cycle (INFO
# commandstats: usec of every command, summed over the nodes, per cycle) and, with
# valgrind, the client's instructions per cycle (callgrind, 220 - 20 cycles).
#
#   bash bench/fair_cost.sh [--rounds N] [--cycles N] [--base REV] [--no-callgrind] [--out DIR]
set -u
set -o pipefail
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
PHP=${PHP:-php}
ROUNDS=5 CYCLES=3000 OUT="$BENCH/out" BASE="" CG=1
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift ;;
        --cycles) CYCLES=$2; shift ;;
        --base) BASE=$2; shift ;;
        --no-callgrind) CG=0 ;;
        --out) OUT=$2; shift ;;
        *) echo "fair_cost.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$BASE" ]; then
    first=$(git -C "$REPO" log --diff-filter=A --format=%H -- tests/fair/fifo.phpt | tail -1)
    [ -n "$first" ] || { echo "fair_cost: no commit adds tests/fair/ (give --base REV)" >&2; exit 1; }
    BASE="$first^"
fi
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
RUN=$(mktemp -d /tmp/redlock-faircost.XXXXXX) || exit 1
export REDLOCK_NODES_DIR="$RUN/nodes"
UP=0
trap '[ $UP = 1 ] && bash "$REPO/tests/nodes.sh" stop >/dev/null 2>&1; rm -rf "$RUN"' EXIT

mkdir -p "$RUN/new" "$RUN/old"
rsync -a --exclude /.git --filter=':- .gitignore' "$REPO/" "$RUN/new/" || exit 1
git -C "$REPO" archive "$BASE" | tar -x -C "$RUN/old" || { echo "fair_cost: cannot export $BASE" >&2; exit 1; }
for v in new old; do
    (cd "$RUN/$v" && bash scripts/build.sh) >"$RUN/build-$v.log" 2>&1 || { echo "fair_cost: $v build failed (see $RUN/build-$v.log)" >&2; tail -5 "$RUN/build-$v.log" >&2; exit 1; }
done

bash "$REPO/tests/nodes.sh" start 5 >/dev/null 2>&1 || { echo "fair_cost: cannot start nodes" >&2; exit 1; }
UP=1
# shellcheck disable=SC1091
. "$REDLOCK_NODES_DIR/env"
IFS=, read -r -a NODE <<<"$REDLOCK_TEST_NODES"
redis_all() { local n; for n in "${NODE[@]}"; do redis-cli -h "${n%:*}" -p "${n##*:}" "$@" >/dev/null; done; }
srv_usec() {   # usec of every command the nodes ran since the reset, summed
    local n s=0 v
    for n in "${NODE[@]}"; do
        v=$(redis-cli -h "${n%:*}" -p "${n##*:}" info commandstats | tr -d '\r' | sed -n 's/^cmdstat_[a-z|]*:calls=[0-9]*,usec=\([0-9]*\),.*/\1/p' | awk '{s += $1} END {print s + 0}')
        s=$((s + v))
    done
    echo "$s"
}
: >"$RUN/results.txt"
for ((r = 1; r <= ROUNDS; r++)); do
    for grace in auto 0; do
        for v in old new; do
            redis_all config resetstat
            "$PHP" -n -d "extension=$RUN/$v/modules/redlock.so" -d "redlock.restart_grace=$grace" "$BENCH/impl/ext.php" \
                --nodes="$REDLOCK_TEST_NODES" --cycles="$CYCLES" --seconds=20 --warmup=200 >"$RUN/$v.$grace.$r.json" ||
                { echo "fair_cost: $v run failed" >&2; exit 1; }
            echo "$v $grace $r $(srv_usec)" >>"$RUN/results.txt"
        done
    done
done
: >"$RUN/cg.txt"
if [ $CG = 1 ] && command -v valgrind >/dev/null; then
    for grace in auto 0; do
        for v in old new; do
            ir=()
            for n in 20 220; do
                f="$RUN/cg.$v.$grace.$n"
                timeout 300 valgrind --tool=callgrind --callgrind-out-file="$f" "$PHP" -n -d "extension=$RUN/$v/modules/redlock.so" \
                    -d "redlock.restart_grace=$grace" "$BENCH/impl/ext.php" --nodes="$REDLOCK_TEST_NODES" --cycles=$n --warmup=10 --no-lat \
                    >/dev/null 2>"$f.log" || { echo "fair_cost: callgrind of $v failed (see $f.log)" >&2; break; }
                ir+=("$(sed -n 's/^summary: *//p; s/^totals: *//p' "$f" | head -1 | awk '{print $1}')")
            done
            [ ${#ir[@]} = 2 ] && echo "$v $grace $(( (ir[1] - ir[0]) / 200 ))" >>"$RUN/cg.txt"
        done
    done
fi
"$PHP" -r '
    [, $run, $out, $cycles, $base] = $argv;
    $rows = [];
    foreach (file("$run/results.txt", FILE_IGNORE_NEW_LINES) as $l) {
        [$v, $g, $r, $us] = explode(" ", $l);
        $j = json_decode(file_get_contents("$run/$v.$g.$r.json"), true);
        $lat = $j["lat_us"]; sort($lat);
        $n = count($lat) + 200;   // (the warm-up cycles ran after the reset too)
        $rows["$v $g"][] = ["p50" => $lat[intdiv(count($lat), 2)], "p99" => $lat[(int)(count($lat) * 0.99)], "srv" => (int)$us / $n];
    }
    $ir = [];
    foreach (file("$run/cg.txt", FILE_IGNORE_NEW_LINES) ?: [] as $l) { [$v, $g, $x] = explode(" ", $l); $ir["$v $g"] = (int)$x; }
    $med = function (array $a) { sort($a); return $a[intdiv(count($a), 2)]; };
    $res = [];
    printf("uncontended lock+release, 5 loopback nodes, old = %s, %d rounds alternating (medians of the rounds)\n", $base, count($rows["new auto"]));
    printf("%-28s %8s %8s %16s %14s\n", "build, restart_grace", "p50 us", "p99 us", "srv us/cycle", "client Ir/cyc");
    foreach (["auto", "0"] as $g) {
        foreach (["old", "new"] as $v) {
            $k = "$v $g";
            $res[$k] = ["p50_us" => $med(array_column($rows[$k], "p50")), "p99_us" => $med(array_column($rows[$k], "p99")),
                "srv_us_per_cycle" => round($med(array_column($rows[$k], "srv")), 2), "client_ir_per_cycle" => $ir[$k] ?? null];
            printf("%-28s %8d %8d %16.2f %14s\n", "$v, $g", $res[$k]["p50_us"], $res[$k]["p99_us"], $res[$k]["srv_us_per_cycle"], $res[$k]["client_ir_per_cycle"] ?? "-");
        }
        printf("ratio new/old (restart_grace %s): p50 %.3f, server time %.3f%s\n", $g, $res["new $g"]["p50_us"] / max(1, $res["old $g"]["p50_us"]),
            $res["new $g"]["srv_us_per_cycle"] / max(0.001, $res["old $g"]["srv_us_per_cycle"]),
            isset($ir["new $g"], $ir["old $g"]) ? sprintf(", client Ir %.3f", $ir["new $g"] / max(1, $ir["old $g"])) : "");
    }
    file_put_contents("$out/fair_cost.json", json_encode($res, JSON_PRETTY_PRINT) . "\n");
' "$RUN" "$OUT" "$CYCLES" "$BASE"
