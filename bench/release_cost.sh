#!/usr/bin/env bash
# bench/release_cost.sh — does the release script's wake-up (PUBSUB NUMSUB, and PUBLISH
# only when someone listens) show in the uncontended cycle? The extension as built
# ("new") side by side with the same tree whose release script is the plain
# compare-and-delete of the spec ("old"), alternating runs on the same 5 loopback nodes:
# client lock+release latency (median, p99) and the server's own time per release
# (INFO commandstats usec_per_call of EVALSHA, summed over the nodes).
#
#   bash bench/release_cost.sh [--rounds N] [--cycles N] [--out DIR]
set -u
set -o pipefail
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
PHP=${PHP:-php}
ROUNDS=5 CYCLES=3000 OUT="$BENCH/out"
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift ;;
        --cycles) CYCLES=$2; shift ;;
        --out) OUT=$2; shift ;;
        *) echo "release_cost.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
RUN=$(mktemp -d /tmp/redlock-relcost.XXXXXX) || exit 1
export REDLOCK_NODES_DIR="$RUN/nodes"
UP=0
trap '[ $UP = 1 ] && bash "$REPO/tests/nodes.sh" stop >/dev/null 2>&1; rm -rf "$RUN"' EXIT

# two private builds: the tree as it is, and the same with the old release script
for v in new old; do
    mkdir -p "$RUN/$v"
    rsync -a --exclude /.git --filter=':- .gitignore' "$REPO/" "$RUN/$v/" || exit 1
done
# the old tree's release.lua is the spec's compare-and-delete, and its table is generated
# again (scripts/gen-lua.sh: its SHA1 b70c2384248f88e6b75b9f89241a180f856ad852)
cat >"$RUN/old/redlock_core/lock/lua/release.lua" <<'LUA'
-- release.lua (bench/release_cost.sh): the plain compare-and-delete of the spec
if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end
LUA
bash "$RUN/old/scripts/gen-lua.sh" >"$RUN/gen-lua-old.log" 2>&1 &&
    grep -q 'b70c2384248f88e6b75b9f89241a180f856ad852' "$RUN/old/redlock_core/lock/rl_scripts_gen.c" ||
    { echo "release_cost: cannot make the old release script" >&2; cat "$RUN/gen-lua-old.log" >&2; exit 1; }
for v in new old; do
    (cd "$RUN/$v" && bash scripts/build.sh) >"$RUN/build-$v.log" 2>&1 || { echo "release_cost: $v build failed (see $RUN/build-$v.log)" >&2; tail -5 "$RUN/build-$v.log" >&2; exit 1; }
done

bash "$REPO/tests/nodes.sh" start 5 >/dev/null 2>&1 || { echo "release_cost: cannot start nodes" >&2; exit 1; }
UP=1
# shellcheck disable=SC1091
. "$REDLOCK_NODES_DIR/env"
IFS=, read -r -a NODE <<<"$REDLOCK_TEST_NODES"
redis_all() { local n; for n in "${NODE[@]}"; do redis-cli -h "${n%:*}" -p "${n##*:}" "$@" >/dev/null; done; }
evalsha_us() {   # usec per EVALSHA call, averaged over the nodes
    local n s=0 k=0 v
    for n in "${NODE[@]}"; do
        v=$(redis-cli -h "${n%:*}" -p "${n##*:}" info commandstats | tr -d '\r' | sed -n 's/^cmdstat_evalsha:.*usec_per_call=\([0-9.]*\).*/\1/p')
        [ -n "$v" ] && { s=$("$PHP" -r "echo $s + $v;"); k=$((k + 1)); }
    done
    "$PHP" -r "echo $k ? round($s / $k, 3) : 0;"
}
: >"$RUN/results.txt"
for ((r = 1; r <= ROUNDS; r++)); do
    for v in new old; do
        redis_all config resetstat
        "$PHP" -n -d "extension=$RUN/$v/modules/redlock.so" "$BENCH/impl/ext.php" --nodes="$REDLOCK_TEST_NODES" \
            --cycles="$CYCLES" --seconds=20 --warmup=200 >"$RUN/$v.$r.json" || { echo "release_cost: $v run failed" >&2; exit 1; }
        echo "$v $r $(evalsha_us)" >>"$RUN/results.txt"
    done
done
"$PHP" -r '
    $rows = [];
    foreach (file($argv[1] . "/results.txt", FILE_IGNORE_NEW_LINES) as $l) {
        [$v, $r, $us] = explode(" ", $l);
        $j = json_decode(file_get_contents($argv[1] . "/$v.$r.json"), true);
        $lat = $j["lat_us"]; sort($lat);
        $rows[$v][] = ["p50" => $lat[intdiv(count($lat), 2)], "p99" => $lat[(int)(count($lat) * 0.99)], "srv" => (float)$us];
    }
    $med = function (array $a) { sort($a); return $a[intdiv(count($a), 2)]; };
    $out = [];
    foreach (["old", "new"] as $v) {
        $out[$v] = ["p50_us" => $med(array_column($rows[$v], "p50")), "p99_us" => $med(array_column($rows[$v], "p99")),
            "evalsha_usec_per_call" => $med(array_column($rows[$v], "srv")), "rounds" => count($rows[$v])];
    }
    printf("uncontended lock+release, 5 loopback nodes, %d rounds alternating (medians of the rounds)\n", $out["new"]["rounds"]);
    printf("%-44s %8s %8s %22s\n", "release script", "p50 us", "p99 us", "EVALSHA us/call (srv)");
    printf("%-44s %8d %8d %22.2f\n", "old: GET + DEL", $out["old"]["p50_us"], $out["old"]["p99_us"], $out["old"]["evalsha_usec_per_call"]);
    printf("%-44s %8d %8d %22.2f\n", "new: GET + DEL + PUBSUB NUMSUB (no PUBLISH)", $out["new"]["p50_us"], $out["new"]["p99_us"], $out["new"]["evalsha_usec_per_call"]);
    printf("median ratio new/old: %.3f\n", $out["new"]["p50_us"] / max(1, $out["old"]["p50_us"]));
    file_put_contents($argv[2] . "/release_cost.json", json_encode($out, JSON_PRETTY_PRINT) . "\n");
' "$RUN" "$OUT"
