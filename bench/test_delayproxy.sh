#!/usr/bin/env bash
# bench/test_delayproxy.sh — correctness of bench/delayproxy (loopback only, bounded).
# Checks: redis-cli works through it; the PING round trip grows by ≈ 2 ms for
# -d 1000 (1 ms each way); a 4 MB value survives the round trip; 8 concurrent
# clients are not serialised; a client of a dead upstream is closed promptly.
# Ends with "N passed, N failed"; exit 1 when something failed.
set -u
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
T=$(mktemp -d /tmp/delayproxy-test.XXXXXX)
export REDLOCK_NODES_DIR="$T/nodes"
PASS=0 FAIL=0 PIDS=()
ok() { PASS=$((PASS + 1)); echo "ok   $*"; }
ko() { FAIL=$((FAIL + 1)); echo "FAIL $*"; }
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    bash "$REPO/tests/nodes.sh" stop >/dev/null 2>&1
    rm -rf "$T"
}
trap cleanup EXIT

make -s -C "$BENCH" proxy OUT="$T/bin" >/dev/null || { echo "cannot build delayproxy"; echo "0 passed, 1 failed"; exit 1; }
bash "$REPO/tests/nodes.sh" start 1 >/dev/null || { echo "cannot start a node"; echo "0 passed, 1 failed"; exit 1; }
. "$REDLOCK_NODES_DIR/env"
UP=${REDLOCK_TEST_NODES%%,*}
UPORT=${UP##*:}

proxy() {   # $1 delay µs, $2 upstream port → sets PPORT
    local ready="$T/ready.$RANDOM" t
    "$T/bin/delayproxy" -d "$1" -r "$ready" "0:127.0.0.1:$2" >/dev/null 2>>"$T/proxy.log" </dev/null &
    PIDS+=($!)
    for ((t = 0; t < 50; t++)); do [ -s "$ready" ] && break; sleep 0.1; done
    PPORT=$(awk '{print $2}' "$ready" 2>/dev/null)
}

proxy 1000 "$UPORT"
[ -n "$PPORT" ] && ok "proxy started on 127.0.0.1:$PPORT" || ko "proxy did not start"

v=$(timeout 5 redis-cli -p "$PPORT" set dp:test hello 2>&1) && [ "$v" = OK ] &&
    [ "$(timeout 5 redis-cli -p "$PPORT" get dp:test 2>&1)" = hello ] &&
    ok "redis-cli SET/GET through the proxy" || ko "redis-cli through the proxy: $v"

jget() { php -r '$j = json_decode($argv[1], true); echo $j[$argv[2]];' "$1" "$2"; }
direct=$(timeout 30 php "$BENCH/tools/rtt.php" "127.0.0.1:$UPORT" 500)
via=$(timeout 30 php "$BENCH/tools/rtt.php" "127.0.0.1:$PPORT" 500 4000000)
d=$(jget "$direct" median_us) p=$(jget "$via" median_us)
inc=$((p - d))
echo "     PING median direct ${d} µs, through -d 1000: ${p} µs (+${inc} µs)"
[ "$inc" -ge 1900 ] && [ "$inc" -le 3500 ] && ok "RTT increase ≈ 2 ms (+$inc µs)" || ko "RTT increase $inc µs, expected 1900..3500"
[ "$(jget "$via" payload_ok)" = 1 ] && ok "4 MB value round trip intact" || ko "4 MB value corrupted"

# 8 concurrent clients: each still sees ≈ 2 ms, not 8 × 2 ms
pids=()
for i in 1 2 3 4 5 6 7 8; do
    timeout 30 php "$BENCH/tools/rtt.php" "127.0.0.1:$PPORT" 200 >"$T/par.$i" &
    pids+=($!)
done
worst=0
for i in 1 2 3 4 5 6 7 8; do
    wait "${pids[$((i - 1))]}"
    m=$(jget "$(cat "$T/par.$i")" median_us 2>/dev/null)
    [ -n "$m" ] && [ "$m" -gt "$worst" ] && worst=$m
done
echo "     worst median of 8 concurrent clients: $worst µs"
[ "$worst" -gt 0 ] && [ "$worst" -lt 6000 ] && ok "8 concurrent connections not serialised" || ko "8 concurrent: worst median $worst µs"

proxy 5000 "$UPORT"
p5=$(jget "$(timeout 30 php "$BENCH/tools/rtt.php" "127.0.0.1:$PPORT" 100)" median_us)
[ "$p5" -ge 9800 ] && [ "$p5" -le 13000 ] && ok "-d 5000: RTT ${p5} µs ≈ 10 ms" || ko "-d 5000: RTT ${p5} µs"

# dead upstream: the client is closed, not left hanging
bash "$REPO/tests/nodes.sh" kill 1 >/dev/null
t0=$(date +%s%N)
out=$(timeout 5 redis-cli -p "$PPORT" ping 2>&1)
rc=$?
el=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $rc != 124 ] && [ "$out" != PONG ] && [ $el -lt 3000 ] && ok "dead upstream: client closed in $el ms" || ko "dead upstream: rc $rc, '$out', $el ms"

echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
