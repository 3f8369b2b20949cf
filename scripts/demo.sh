#!/usr/bin/env bash
# demo.sh -- install what is missing, build, start 5 local Redis nodes and show the lock at work:
# 8 concurrent PHP processes increment a counter with zero lost updates, and a second run of a
# "cron job" is refused while the first holds the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
export REDLOCK_NODES_DIR=$(mktemp -d /tmp/redlock-demo.XXXXXX)
trap 'bash tests/nodes.sh stop >/dev/null 2>&1 || true' EXIT
bash tests/nodes.sh start 5 >/dev/null
set -a; . "$REDLOCK_NODES_DIR/env"; set +a
php="php -n -d extension=$(pwd)/modules/redlock.so"
echo "nodes: $REDLOCK_TEST_NODES"

workers=8 iterations=50
counter="$REDLOCK_NODES_DIR/counter"; echo 0 > "$counter"
start=$(date +%s%N)
pids=()
for _ in $(seq $workers); do $php scripts/demo_counter.php "$counter" $iterations & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
got=$(cat "$counter"); want=$((workers * iterations))
printf 'counter: %d of %d increments (%d lost) in %d ms by %d processes\n' "$got" "$want" $((want - got)) \
  $((($(date +%s%N) - start) / 1000000)) $workers

cron='$rl = new RedLock(explode(",", getenv("REDLOCK_TEST_NODES")), ["retry_count" => 0]);
if (!$rl->lock("cron:nightly-report", 60000)) { fwrite(STDERR, "cron job: already running elsewhere, exiting\n"); exit(1); }
echo "cron job: got the lock, working for 2 s\n"; sleep(2); echo "cron job: done (lock released at exit)\n";'
$php -r "$cron" & first=$!
sleep 0.5
$php -r "$cron" || echo "second run refused (exit $?) while the first holds the lock"
wait $first
$php -r "$cron" >/dev/null && echo "a run after the first ended gets the lock again"
[ "$got" -eq "$want" ]
