# shellcheck shell=bash
# net.sh -- the network of tests/harness/netfault (sourced by run.sh and long.sh, not run by itself):
# five Redis nodes, each in its own network namespace behind a veth pair, and the faults
# made inside a namespace with nftables (silent drops: no RST, no ICMP).
#   nf_can_run            0, or 1 with $nf_skip_why (not root, no ip/nft/redis-server,
#                         namespaces cannot be made here)
#   nf_up                 namespaces nf<pid>n1..5, veth nf<pid>h<k> (10.<o>.<k>.1/30 here,
#                         .2 inside), redis-server on <.2>:6379 in each, and in front of it
#                         the delay proxy (delayproxy.py) on <.2>:6380; exports NF_NODES
#                         ("10.o.1.2:6379,..."), NF_DNODES (the proxies: "10.o.1.2:6380,..."),
#                         NF_NS (the namespace names), NF_DIR
#   nf_down               stops the servers and removes namespaces and veths (trap EXIT)
# The faults themselves (partition, heal, loss, delay, restart) are in common.inc (the PHP side
# makes them, so that it knows to the millisecond when a heal happened).
nf_tag="nf$$"
nf_octet=$((200 + $$ % 50))
nf_dir=""
nf_can_run() {
  nf_skip_why=""
  if [ "$(id -u)" -ne 0 ]; then nf_skip_why="not root (network namespaces and nftables need root)"; return 1; fi
  for t in ip nft redis-server redis-cli timeout; do
    command -v "$t" >/dev/null 2>&1 || { nf_skip_why="$t not installed (scripts/deps.sh installs it)"; return 1; }
  done
  local probe="${nf_tag}p"
  if ! ip netns add "$probe" 2>/dev/null; then nf_skip_why="ip netns add failed (no namespaces in this container)"; return 1; fi
  if ! ip netns exec "$probe" nft add table inet nfprobe 2>/dev/null; then
    ip netns del "$probe" 2>/dev/null
    nf_skip_why="nft cannot make a table in a namespace (no nf_tables in this kernel)"; return 1
  fi
  ip netns del "$probe" 2>/dev/null
  return 0
}
nf_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
nf_up() {
  nf_dir=$(mktemp -d "/tmp/redlock-netfault.XXXXXX")
  local nodes="" dnodes="" nss="" k ns h
  for k in 1 2 3 4 5; do
    ns="${nf_tag}n$k"; h="${nf_tag}h$k"
    ip netns add "$ns" || return 1
    ip link add "$h" type veth peer name eth0 netns "$ns" || return 1
    ip addr add "10.$nf_octet.$k.1/30" dev "$h" && ip link set "$h" up || return 1
    ip netns exec "$ns" ip addr add "10.$nf_octet.$k.2/30" dev eth0 || return 1
    ip netns exec "$ns" ip link set eth0 up && ip netns exec "$ns" ip link set lo up || return 1
    # the fault table: empty chains now; common.inc adds and flushes the drop rules
    ip netns exec "$ns" nft -f - <<NFT || return 1
table inet rlnf {
  chain in { type filter hook input priority 0; policy accept; }
  chain out { type filter hook output priority 0; policy accept; }
}
NFT
    ip netns exec "$ns" redis-server --bind "10.$nf_octet.$k.2" --port 6379 --save '' --appendonly no \
      --protected-mode no --daemonize yes --dir "$nf_dir" --pidfile "$nf_dir/redis-$k.pid" \
      --logfile "$nf_dir/redis-$k.log" --dbfilename "dump-$k.rdb" || return 1
    # the delay proxy (the delay fault: common.inc nf_delay writes delay-$k); ip netns exec
    # execs it, so $! is the proxy's own pid
    ip netns exec "$ns" python3 "$nf_here/delayproxy.py" "10.$nf_octet.$k.2" 6380 "10.$nf_octet.$k.2" 6379 \
      "$nf_dir/delay-$k" </dev/null >"$nf_dir/proxy-$k.log" 2>&1 &
    echo $! >"$nf_dir/proxy-$k.pid"
    nodes="$nodes${nodes:+,}10.$nf_octet.$k.2:6379"; dnodes="$dnodes${dnodes:+,}10.$nf_octet.$k.2:6380"
    nss="$nss${nss:+,}$ns"
  done
  for k in 1 2 3 4 5; do
    local ok=0
    for _ in $(seq 1 50); do
      redis-cli -h "10.$nf_octet.$k.2" -p 6379 PING 2>/dev/null | grep -q PONG && { ok=1; break; }
      sleep 0.1
    done
    [ $ok = 1 ] || { echo "node $k did not answer"; return 1; }
    ok=0
    for _ in $(seq 1 50); do
      redis-cli -h "10.$nf_octet.$k.2" -p 6380 PING 2>/dev/null | grep -q PONG && { ok=1; break; }
      sleep 0.1
    done
    [ $ok = 1 ] || { echo "the delay proxy of node $k did not answer: $(cat "$nf_dir/proxy-$k.log")"; return 1; }
  done
  export NF_NODES="$nodes" NF_DNODES="$dnodes" NF_NS="$nss" NF_DIR="$nf_dir"
}
nf_down() {
  local k f
  for f in "$nf_dir"/redis-*.pid "$nf_dir"/proxy-*.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 0.2
  for k in 1 2 3 4 5; do
    ip netns del "${nf_tag}n$k" 2>/dev/null
    ip link del "${nf_tag}h$k" 2>/dev/null
  done
  [ -n "$nf_dir" ] && rm -rf "$nf_dir"
  return 0
}
