#!/usr/bin/env bash
# run.sh -- the real-network fault suite (tests/harness/netfault), started by scripts/test.sh:
# five Redis nodes in their own network namespaces (net.sh), silent partitions, one-way
# partitions, random loss and empty restarts made with nftables/kill inside them, and
# slow links through a delay proxy in each namespace (delayproxy.py; common.inc). Root only; where namespaces cannot be made it prints why and skips.
#   run.sh [--long]   short form (CI, < 3 min) or the long one (long.sh: 30 s partitions,
#                     a 5 min nemesis run)
# Environment: REDLOCK_SO (default <repo>/modules/redlock.so); NF_RESTARTS=0 leaves out the empty
# restarts of the nemesis run (on by default: restart safety, docs/api.md "Restarted nodes"). Ends with "netfault: N passed, N failed, N skipped".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
so=${REDLOCK_SO:-$root/modules/redlock.so}
long=0
[ "${1:-}" = --long ] && long=1
# shellcheck source=net.sh
. "$here/net.sh"
passed=0 failed=0 skipped=0
finish() { echo "netfault: $passed passed, $failed failed, $skipped skipped"; }
if ! nf_can_run; then
  echo "SKIP netfault: $nf_skip_why"; skipped=1; finish; exit 0
fi
trap 'nf_down' EXIT
trap 'exit 1' INT TERM
if ! nf_up; then echo "FAIL netfault setup (net.sh nf_up)"; failed=1; finish; exit 1; fi
php=(php -n -d "extension=$so" -d extension=posix -d extension=igbinary -d extension=redis)
# the nemesis' counter lives outside the faulty network: a Redis on loopback
aux_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$aux_port" --save '' --appendonly no --daemonize yes \
  --pidfile "$NF_DIR/redis-aux.pid" --logfile "$NF_DIR/redis-aux.log" || { echo "FAIL aux redis"; failed=1; finish; exit 1; }
export NF_AUX="127.0.0.1:$aux_port"
"${php[@]}" -r 'exit(extension_loaded("redlock") && function_exists("posix_kill") && function_exists("pcntl_fork") && class_exists("Redis") ? 0 : 1);' ||
  { echo "FAIL cannot load $so, posix, pcntl and redis into php"; failed=1; finish; exit 1; }
for _ in $(seq 1 50); do redis-cli -p "$aux_port" PING 2>/dev/null | grep -q PONG && break; sleep 0.1; done
if [ $long = 1 ]; then part=30 nem=300; else part=7 nem=25; fi
nem=${NF_NEMESIS_SECS:-$nem} # (a nemesis run of its own length: NF_NEMESIS_SECS=120 NF_ONLY=nemesis)
# one scenario: bounded (its own limits, and timeout(1) around them), counted by its
# "PASS|FAIL name: ..." line
scenario() { # bound script [env...]
  local bound=$1 script=$2; shift 2
  local out rc
  [ -n "${NF_ONLY:-}" ] && [ "${script%.php}" != "$NF_ONLY" ] && return 0
  out=$(env "$@" timeout -k 5 "$bound" "${php[@]}" "$here/$script" 2>&1); rc=$?
  echo "$out" | grep -E '^(PASS|FAIL) ' || echo "FAIL $script: no result (rc $rc): $(echo "$out" | tail -n 5 | tr '\n' ' ')"
  if [ $rc -eq 0 ] && echo "$out" | grep -q '^PASS '; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  # every scenario leaves the network as it found it
  for k in 1 2 3 4 5; do ip netns exec "${nf_tag}n$k" nft flush chain inet rlnf in; ip netns exec "${nf_tag}n$k" nft flush chain inet rlnf out; done 2>/dev/null
}
scenario $((part * 6 + 30)) heal_to_use.php NF_PARTITION=$part
scenario $((part * 6 + 30)) release_owed.php NF_PARTITION=$part
scenario $((part * 6 + 30)) shifted_partition.php NF_PARTITION=$part
scenario 60 slow_nodes.php
scenario $((nem + 60)) nemesis.php NF_SECS=$nem NF_RESTARTS="${NF_RESTARTS:-1}"
finish
[ $failed -eq 0 ]
