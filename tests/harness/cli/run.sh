#!/usr/bin/env bash
# tests/harness/cli/run.sh -- drives the real redlock(1) binary against real Redis nodes, one check per
# behaviour of docs/cli.md (exit statuses, environment, process group, signals, lock loss, --check,
# REDLOCK_NODES / REDLOCK_PASSWORD, --version). Last line: "N passed, N failed".
#
#   REDLOCK_CLI         the binary (default: builds redlock_core/build/redlock with make cli)
#   REDLOCK_SO          the extension, for the --version comparison (default: modules/redlock.so)
#   REDLOCK_TEST_NODES  lock nodes from tests/nodes.sh env; when unset, this script starts
#                       its own 5 (in a temp REDLOCK_NODES_DIR) and stops them at the end.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cd "$root" || exit 2

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1${2:+: $2}"; }
# check NAME COND-STRING DETAIL: COND evaluated by bash
check() { if eval "$2"; then pass "$1"; else fail "$1" "${3:-}"; fi; }

tmp=$(mktemp -d /tmp/redlock-cli-test.XXXXXX)
own_nodes=0
started_pids=()
cleanup() {
    for p in "${started_pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    if [ -n "${REDLOCK_NODES_DIR:-}" ]; then
        for i in 1 2 3 4 5; do bash tests/nodes.sh resume "$i" >/dev/null 2>&1; done
    fi
    acl_cleanup
    [ "$own_nodes" -eq 1 ] && bash tests/nodes.sh stop >/dev/null 2>&1
    rm -rf "$tmp"
}
acl_cleanup() { :; }
trap cleanup EXIT

# ---- the binary and the nodes ----
BIN=${REDLOCK_CLI:-}
if [ -z "$BIN" ]; then
    make -s -C redlock_core cli >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; echo "0 passed, 1 failed"; exit 1; }
    BIN=$root/redlock_core/build/redlock
fi
if [ -z "${REDLOCK_TEST_NODES:-}" ]; then
    export REDLOCK_NODES_DIR=$tmp/nodes
    own_nodes=1
    bash tests/nodes.sh start 5 >"$tmp/nodes.log" 2>&1 || { cat "$tmp/nodes.log"; echo "0 passed, 1 failed"; exit 1; }
    # TLS nodes too (after start: tests/nodes.sh start-tls); without the openssl CLI the TLS checks are skipped
    bash tests/nodes.sh start-tls 3 >>"$tmp/nodes.log" 2>&1 || echo "TLS nodes not started: $(tail -n 2 "$tmp/nodes.log")"
    set -a; . "$REDLOCK_NODES_DIR/env"; set +a
fi
IFS=, read -r -a NODES <<<"$REDLOCK_TEST_NODES"
[ "${#NODES[@]}" -eq 5 ] || { echo "needs 5 nodes, have ${#NODES[@]}"; echo "0 passed, 1 failed"; exit 1; }
export REDLOCK_NODES=$REDLOCK_TEST_NODES
unset REDLOCK_PASSWORD REDLOCK_RESOURCE REDLOCK_TOKEN REDLOCK_FENCE

run=$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
res() { echo "clitest:$run:$1"; }
cli_host() { echo "${1%:*}"; }
cli_port() { echo "${1##*:}"; }
rcli() { local a=$1; shift; timeout 2 redis-cli -h "$(cli_host "$a")" -p "$(cli_port "$a")" "$@" 2>/dev/null; }
# A node that does not answer is an error of the check, never "no key": the
# counts below then print "unreachable" (not a number: every comparison of
# the count fails), name the node on stderr and return 1.
unreachable() { echo "$1: $2" >&2; echo unreachable; return 1; }
# nodes on which KEY holds exactly VALUE
held_on() {
    local n=0 a v
    for a in "${NODES[@]}"; do
        v=$(rcli "$a" GET "$1") || { unreachable "held_on: $a" "no answer to GET $1"; return 1; }
        [ "$v" = "$2" ] && n=$((n + 1))
    done
    echo $n
}
# nodes on which KEY exists
keys_on() {
    local n=0 a v
    for a in "${NODES[@]}"; do
        v=$(rcli "$a" EXISTS "$1")
        case $v in
        1) n=$((n + 1)) ;;
        0) ;;
        *) unreachable "keys_on: $a" "answered '$v' to EXISTS $1"; return 1 ;;
        esac
    done
    echo $n
}
evalsha_calls() {
    local s=0 a c
    for a in "${NODES[@]}"; do
        c=$(rcli "$a" INFO commandstats) || { unreachable "evalsha_calls: $a" "no answer to INFO"; return 1; }
        c=$(tr -d '\r' <<<"$c" | sed -n 's/^cmdstat_evalsha:calls=\([0-9]*\).*/\1/p')
        s=$((s + ${c:-0})) # no line: no EVALSHA yet
    done
    echo $s
}
ms() { echo $(( $(date +%s%N) / 1000000 )); }
sleep_until() { while [ "$(ms)" -lt "$1" ]; do sleep 0.02; done; }
# wait_until TIMEOUT_MS COMMAND...: poll every 20 ms
wait_until() { local end=$(( $(ms) + $1 )); shift; while [ "$(ms)" -lt "$end" ]; do "$@" && return 0; sleep 0.02; done; "$@"; }
file_has() { [ -s "$1" ]; }
keys_are() { [ "$(keys_on "$1")" -eq "$2" ]; }
pause3() { for i in 1 2 3; do bash tests/nodes.sh pause "$i" >/dev/null; done; }
resume3() { for i in 1 2 3; do bash tests/nodes.sh resume "$i" >/dev/null; done; }
# start redlock in the background with default INT and QUIT handling (a
# non-interactive shell starts background jobs with them ignored); sets $bg
start_bg() { env --default-signal=INT,TERM,HUP,QUIT "$BIN" "$@" 2>"$tmp/bgerr" & bg=$!; started_pids+=("$bg"); }
# the same, redlock in a process group of its own whose parent (this script) is in another group of
# the session, as a shell's job is: it can stop (the kernel drops SIGTSTP for an orphaned group, which
# this script's own may be: under setsid, or once the process that started it is gone)
start_bg_job() {
  perl -e 'setpgrp(0, 0) or die "setpgrp: $!"; exec @ARGV or die "exec: $!"' -- \
    env --default-signal=INT,TERM,HUP,QUIT "$BIN" "$@" 2>"$tmp/bgerr" & bg=$!; started_pids+=("$bg")
}
# a process's state letter (R, S, T stopped, Z ...); empty when it is gone
pstate() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
# gone: no such process, or a zombie (a dead orphan stays one under an init that does not reap)
all_gone() { local p s; for p; do s=$(pstate "$p"); [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ] && return 1; done; return 0; }
is_stopped() { [ "$(pstate "$1")" = T ]; }
is_running() { local s; s=$(pstate "$1"); [ -n "$s" ] && [ "$s" != T ] && [ "$s" != Z ]; }
lines() { wc -l <"$1" 2>/dev/null || echo 0; }
# mem_copies PID NEEDLE...: copies of each NEEDLE in the writable memory of process PID, read from outside it
# (/proc/PID/mem), as "STACK OTHER" per needle (STACK: the main thread's stack); "unreadable" when it cannot be read
mem_copies() {
    python3 - "$@" <<'PY' 2>/dev/null || echo unreadable
import sys
pid, needles = sys.argv[1], [n.encode() for n in sys.argv[2:]]
found = [[0, 0] for _ in needles]
with open(f'/proc/{pid}/maps') as maps, open(f'/proc/{pid}/mem', 'rb', 0) as mem:
    for line in maps:
        f = line.split()
        name = f[5] if len(f) > 5 else ''
        if f[1][:2] != 'rw' or name.startswith('/dev/') or name == '[vvar]':
            continue
        a, b = (int(x, 16) for x in f[0].split('-'))
        try:
            mem.seek(a)
            data = mem.read(b - a)
        except OSError:
            continue
        for i, n in enumerate(needles):
            found[i][0 if name == '[stack]' else 1] += data.count(n)
print(' '.join(f'{s} {o}' for s, o in found))
PY
}
ticks_at_least() { [ "$(lines "$1")" -ge "$2" ]; }
# wait for background child $1, at most $2 s (default 30): past that it is SIGKILLed (its COMMAND dies
# with it) and the wait returns 137, so a check that went wrong fails instead of hanging the suite
bwait() {
  local pid=$1 end=$(( $(ms) + ${2:-30} * 1000 ))
  while kill -0 "$pid" 2>/dev/null && [ "$(pstate "$pid")" != Z ] && [ "$(ms)" -lt "$end" ]; do sleep 0.05; done
  if kill -0 "$pid" 2>/dev/null && [ "$(pstate "$pid")" != Z ]; then
    echo "bwait: pid $pid still running after ${2:-30} s: killed" >&2
    kill -CONT "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid"
}

echo "binary: $BIN"
echo "nodes: $REDLOCK_TEST_NODES"

# ---- the checks' own helpers: a node that does not answer fails the count, loudly ----
saved_nodes=("${NODES[@]}"); NODES=("127.0.0.1:1" "${saved_nodes[@]:1}")
kout=$(keys_on "$(res helper)" 2>"$tmp/kerr"); krc=$?
hout=$(held_on "$(res helper)" x 2>>"$tmp/kerr"); hrc=$?
NODES=("${saved_nodes[@]}")
check keys_on_fails_on_a_dead_node '[ $krc -ne 0 ] && [ $hrc -ne 0 ] && ! [[ "$kout$hout" =~ [0-9] ]] && [ "$(grep -c "127.0.0.1:1" "$tmp/kerr")" -eq 2 ]' "keys_on rc=$krc '$kout', held_on rc=$hrc '$hout', stderr: $(cat "$tmp/kerr")"

# ---- --version, -h, usage errors (64) ----
v=$("$BIN" --version); rc=$?
so=${REDLOCK_SO:-$root/modules/redlock.so}
if [ -f "$so" ]; then
    ev=$(php -n -d "extension=$so" -r 'echo phpversion("redlock");' 2>/dev/null)
    check version_matches_extension '[ $rc -eq 0 ] && [ "$v" = "redlock $ev" ]' "'$v' vs extension '$ev'"
else
    echo "SKIP version_matches_extension: no $so (build the extension first)"
fi
hv=$(sed -n 's/^#define RL_VERSION "\(.*\)"/\1/p' redlock_core/rl.h)
pv=$(sed -n 's/^#define PHP_REDLOCK_VERSION "\(.*\)"/\1/p' php_redlock.h)
check version_rl_h_equals_php_redlock_h '[ -n "$hv" ] && [ "$hv" = "$pv" ] && [ "$v" = "redlock $hv" ]' "rl.h $hv, php_redlock.h $pv"
make -s -C redlock_core install-cli PREFIX="$tmp/prefix" >"$tmp/install.log" 2>&1; rc=$?
iv=$("$tmp/prefix/bin/redlock" --version 2>&1)
check install_cli_prefix '[ $rc -eq 0 ] && [ "$iv" = "$v" ] && [ -f "$tmp/prefix/share/man/man1/redlock.1" ]' "rc=$rc $(cat "$tmp/install.log") $iv"
mw=$(man --warnings -l redlock_core/cli/redlock.1 2>&1 >/dev/null)
check man_page_renders_clean '[ -z "$mw" ] && grep -q "^\.TH REDLOCK 1 .*redlock $hv" redlock_core/cli/redlock.1' "$mw"
out=$("$BIN" -h); rc=$?
check help_exit_0 '[ $rc -eq 0 ] && grep -q -- "--kill-grace" <<<"$out"'
usage_case() { # name expected-substring args...
    local name=$1 want=$2; shift 2
    local err
    err=$("$@" 2>&1 >/dev/null); local rc=$?
    check "usage_$name" '[ $rc -eq 64 ] && grep -qi -- "$want" <<<"$err"' "rc=$rc err=$err"
}
usage_case no_args "missing RESOURCE" "$BIN"
usage_case no_command "missing COMMAND" "$BIN" "$(res u1)"
usage_case no_command_after_dashes "missing COMMAND" "$BIN" "$(res u1)" --
usage_case unknown_option "unknown option" "$BIN" --frobnicate "$(res u1)" -- true
usage_case bad_ttl "--ttl" "$BIN" -t 0 "$(res u1)" -- true
usage_case bad_ttl_text "--ttl" "$BIN" -t 10s "$(res u1)" -- true
usage_case bad_wait "--wait" "$BIN" -w -5 "$(res u1)" -- true
usage_case bad_conflict_exit "--conflict-exit" "$BIN" -E 256 "$(res u1)" -- true
usage_case missing_value "needs a value" "$BIN" -t
usage_case tls_option_needs_value "needs a value" "$BIN" --tls-cafile
usage_case check_with_command "--check takes no COMMAND" "$BIN" --check "$(res u1)" -- true
usage_case no_nodes "no nodes" env -u REDLOCK_NODES "$BIN" "$(res u1)" -- true
usage_case bad_uri "node 2 of --nodes" "$BIN" -n "${NODES[0]},redis://h:99999" "$(res u1)" -- true
usage_case duplicate_node "same server" "$BIN" -n "${NODES[0]},${NODES[1]},${NODES[0]/127.0.0.1/localhost}" "$(res u1)" -- true
usage_case uri_password_not_echoed "node 1" "$BIN" -n "redis://u:Hidden-Pw-1@h:99999" "$(res u1)" -- true
err=$("$BIN" -n "redis://u:Hidden-Pw-1@h:99999" "$(res u1)" -- true 2>&1)
check usage_message_has_no_password '! grep -q Hidden-Pw-1 <<<"$err"' "$err"

# ---- COMMAND: environment, exit status, process group, release ----
r=$(res env)
out=$("$BIN" "$r" -- sh -c 'echo "R=$REDLOCK_RESOURCE T=$REDLOCK_TOKEN F=${REDLOCK_FENCE-unset}"; exit 3'); rc=$?
tok=$(sed -n 's/.* T=\([0-9a-f]*\) .*/\1/p' <<<"$out")
check exit_status_is_commands '[ $rc -eq 3 ]' "rc=$rc"
check env_resource '[[ "$out" == "R=$r "* ]]' "$out"
check env_token_40_hex '[[ "$tok" =~ ^[0-9a-f]{40}$ ]]' "$out"
check env_no_fence_without_fencing '[[ "$out" == *"F=unset" ]]' "$out"
check released_after_nonzero_exit '[ "$(keys_on "$r")" -eq 0 ]'
out=$("$BIN" "$r" -- sh -c 'echo "$(redis-cli -h '"$(cli_host "${NODES[2]}")"' -p '"$(cli_port "${NODES[2]}")"' GET "$REDLOCK_RESOURCE") $REDLOCK_TOKEN"')
check token_is_the_key_value '[ -n "$out" ] && [ "${out% *}" = "${out#* }" ]' "$out"
f1=$("$BIN" --fencing "$r" -- sh -c 'echo $REDLOCK_FENCE'); f2=$("$BIN" --fencing "$r" -- sh -c 'echo $REDLOCK_FENCE')
check env_fence_grows '[[ "$f1" =~ ^[0-9]+$ ]] && [ "$f1" -gt 0 ] && [ "$f2" -gt "$f1" ]' "$f1 then $f2"
"$BIN" "$r" -- sh -c 'kill -TERM $$'; rc=$?
check exit_128_plus_signal_term '[ $rc -eq 143 ]' "rc=$rc"
"$BIN" "$r" -- sh -c 'kill -KILL $$'; rc=$?
check exit_128_plus_signal_kill '[ $rc -eq 137 ]' "rc=$rc"
check released_after_signal_death '[ "$(keys_on "$r")" -eq 0 ]'
"$BIN" "$r" -- /nonexistent/command 2>"$tmp/err"; rc=$?
check command_not_found_127 '[ $rc -eq 127 ] && grep -q "cannot run" "$tmp/err" && [ "$(keys_on "$r")" -eq 0 ]' "rc=$rc"
out=$("$BIN" "$r" -- sh -c 'echo "$$ $(cut -d" " -f5 /proc/$$/stat) $(cut -d" " -f5 /proc/$PPID/stat)"')
read -r cpid cpgid ppgid <<<"$out"
check own_process_group '[ -n "$cpid" ] && [ "$cpid" = "$cpgid" ] && [ "$cpgid" != "$ppgid" ]' "$out"
"$BIN" --prefix "pfx:$run:" "p" -- sh -c "exit \$(redis-cli -h $(cli_host "${NODES[0]}") -p $(cli_port "${NODES[0]}") EXISTS pfx:$run:p | grep -qx 1 && echo 0 || echo 1)"; rc=$?
check prefix_is_prepended '[ $rc -eq 0 ]' "rc=$rc"
"$BIN" -n "${NODES[0]},${NODES[1]},${NODES[2]}" "$(res nflag)" -- true; rc1=$?
REDLOCK_NODES="127.0.0.1:1" "$BIN" -n "$REDLOCK_TEST_NODES" "$(res nflag)" -- true; rc2=$?
check nodes_flag_overrides_env '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]' "$rc1 $rc2"

# ---- held while COMMAND runs, extended past its TTL; conflicts; --check ----
r=$(res held); rm -f "$tmp/go"
# the holder holds until the test says so ($tmp/go; at most 20 s)
hold_until_go='i=0; while [ ! -e '"$tmp/go"' ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done'
start_bg -t 1000 "$r" -- sh -c "$hold_until_go"
wait_until 2000 keys_are "$r" 5
sleep 1.5 # past the TTL: only the extensions keep it
tokn=$(rcli "${NODES[0]}" GET "$r")
check held_past_ttl_on_all_nodes '[ -n "$tokn" ] && [ "$(held_on "$r" "$tokn")" -eq 5 ]'
pttl=$(rcli "${NODES[1]}" PTTL "$r")
check pttl_within_ttl '[ "$pttl" -gt 0 ] && [ "$pttl" -le 1000 ]' "pttl=$pttl"
"$BIN" "$r" -- true 2>"$tmp/err"; rc=$?
check conflict_exit_1_with_message '[ $rc -eq 1 ] && grep -q "locked by another owner" "$tmp/err"' "rc=$rc"
"$BIN" -E 7 -q "$r" -- true 2>"$tmp/err"; rc=$?
check conflict_exit_E_quiet '[ $rc -eq 7 ] && [ ! -s "$tmp/err" ]' "rc=$rc $(cat "$tmp/err")"
"$BIN" --check "$r"; rc=$?
check check_locked_0 '[ $rc -eq 0 ]' "rc=$rc"
t0=$(ms); "$BIN" -w 300 -q "$r" -- true; rc=$?; took=$(( $(ms) - t0 ))
check wait_runs_out_conflict '[ $rc -eq 1 ] && [ $took -ge 250 ] && [ $took -lt 1500 ]' "rc=$rc took=${took}ms"
# A waiter started while the lock is held; the holder releases 0.5 s later
# (the test's go). The waiter's COMMAND runs only after that release (it
# checks for the go file), and within 2 s of it: a retry pause is at most
# 300 ms (200 + 100 jitter) plus round trips of 50 ms at most; its --wait
# (5 s from its start) cannot run out before that.
rm -f "$tmp/waited"
"$BIN" -w 5000 "$r" -- sh -c 'test -e '"$tmp/go"' && touch '"$tmp/waited" & wpid=$!; started_pids+=("$wpid")
sleep 0.5
touch "$tmp/go"; t0=$(ms)
wait "$wpid"; rc=$?; took=$(( $(ms) - t0 ))
check wait_acquires_after_release '[ $rc -eq 0 ] && [ -e "$tmp/waited" ] && [ $took -lt 2000 ]' "rc=$rc took=${took}ms after the release"
bwait "$bg"; rc=$?
check holder_exit_0 '[ $rc -eq 0 ]' "rc=$rc"
"$BIN" --check "$r"; rc=$?
check check_unlocked_1 '[ $rc -eq 1 ]' "rc=$rc"
rcli "${NODES[0]}" SET "$r" foreign PX 5000 >/dev/null; rcli "${NODES[1]}" SET "$r" foreign PX 5000 >/dev/null
rcli "${NODES[2]}" SET "$r" foreign PX 5000 >/dev/null
"$BIN" --check "$r"; rc=$?
check check_locked_by_anyone '[ $rc -eq 0 ]' "rc=$rc"
for a in "${NODES[@]}"; do rcli "$a" DEL "$r" >/dev/null; done

# ---- no quorum: 69, each failed node named with why, never a password ----
"$BIN" -n "127.0.0.1:1,127.0.0.1:2,${NODES[0]}" "$(res q)" -- true 2>"$tmp/err"; rc=$?
check no_quorum_69 '[ $rc -eq 69 ]' "rc=$rc"
check no_quorum_names_nodes 'grep -q "127.0.0.1:1 " "$tmp/err" && grep -q "127.0.0.1:2 " "$tmp/err" && grep -qi "refused" "$tmp/err"' "$(cat "$tmp/err")"
nodes_pw=$(printf 'redis://:Sekret-Pw-9@%s,' "${NODES[@]}"); nodes_pw=${nodes_pw%,}
"$BIN" -n "$nodes_pw" "$(res q)" -- true 2>"$tmp/err"; rc=$?
check wrong_password_69_not_shown '[ $rc -eq 69 ] && ! grep -q "Sekret-Pw-9" "$tmp/err" && grep -qi "auth" "$tmp/err"' "rc=$rc $(cat "$tmp/err")"
REDLOCK_PASSWORD=Env-Pw-77 "$BIN" "$(res q)" -- true 2>"$tmp/err"; rc=$?
check redlock_password_used_not_shown '[ $rc -eq 69 ] && ! grep -q "Env-Pw-77" "$tmp/err" && grep -qi "auth" "$tmp/err"' "rc=$rc $(cat "$tmp/err")"
"$BIN" -n "127.0.0.1:1,127.0.0.1:2,${NODES[0]}" --check "$(res q)" 2>/dev/null; rc=$?
check check_no_quorum_69 '[ $rc -eq 69 ]' "rc=$rc"

# REDLOCK_PASSWORD and URI passwords against nodes that require them (an ACL user on every node)
acl_ok=1
for a in "${NODES[@]}"; do [ "$(rcli "$a" ACL SETUSER "rlcli$run" on '>Acl-Pw-3' '~*' '+@all')" = OK ] || acl_ok=0; done
acl_cleanup() { for a in "${NODES[@]}"; do rcli "$a" ACL DELUSER "rlcli$run" "rlmem$run" >/dev/null; done; }
if [ $acl_ok -eq 1 ]; then
    nodes_user=$(printf "redis://rlcli$run@%s," "${NODES[@]}"); nodes_user=${nodes_user%,}
    r=$(res acl)
    rm -f "$tmp/go"
    # COMMAND holds until the checks are done ($tmp/go), not for a fixed time
    REDLOCK_PASSWORD=Acl-Pw-3 "$BIN" -n "$nodes_user" "$r" -- sh -c 'echo "$PPID $$" >'"$tmp/pids; $hold_until_go" &
    apid=$!; started_pids+=("$apid")
    wait_until 3000 file_has "$tmp/pids"
    read -r rpid cpid <"$tmp/pids"
    psout=$(ps -o args= -p "$rpid" -p "$cpid" 2>/dev/null)
    kn=$(keys_on "$r")
    touch "$tmp/go"
    check redlock_password_with_acl_user '[ -n "$psout" ] && [ "$kn" = 5 ]' "keys=$kn $psout"
    check password_not_in_ps '! grep -q "Acl-Pw-3" <<<"$psout"' "$psout"
    wait "$apid"
    nodes_uri=$(printf "redis://rlcli$run:Acl-Pw-3@%s," "${NODES[@]}"); nodes_uri=${nodes_uri%,}
    "$BIN" -n "$nodes_uri" "$r" -- true; rc=$?
    check password_in_uri '[ $rc -eq 0 ]' "rc=$rc"
    # COMMAND's environment holds no password: no REDLOCK_PASSWORD, REDLOCK_NODES without the URIs'
    # passwords (user kept: a redlock inside COMMAND, given the password, takes the same nodes).
    # Looked for with env, in /proc/<COMMAND>/environ and in /proc/<redlock>/environ (COMMAND may read it).
    rm -f "$tmp/env" "$tmp/environ" "$tmp/penviron"
    REDLOCK_PASSWORD=Acl-Pw-3 REDLOCK_NODES="$nodes_uri" "$BIN" "$r" -- sh -c 'env >'"$tmp/env"'; tr "\0" "\n" </proc/$$/environ >'"$tmp/environ"'; tr "\0" "\n" </proc/$PPID/environ >'"$tmp/penviron"'; REDLOCK_PASSWORD=Acl-Pw-3 "$0" "$1" -- true' "$BIN" "$(res inner)" 2>"$tmp/err"; rc=$?
    leaks=$(grep -l "Acl-Pw-3" "$tmp/env" "$tmp/environ" "$tmp/penviron" 2>&1)
    check command_env_has_no_password '[ $rc -eq 0 ] && [ -s "$tmp/env" ] && [ -s "$tmp/environ" ] && [ -s "$tmp/penviron" ] && [ -z "$leaks" ] && ! grep -q "^REDLOCK_PASSWORD=" "$tmp/env"' "rc=$rc password in: $leaks $(cat "$tmp/err")"
    check command_env_nodes_without_passwords '[ "$(sed -n "s/^REDLOCK_NODES=//p" "$tmp/env")" = "$nodes_user" ]' "$(grep ^REDLOCK_NODES= "$tmp/env")"
    # redlock's own memory while COMMAND runs, read from outside (/proc/<redlock>/mem): no copy of the URI
    # REDLOCK_PASSWORD was put into (percent-encoded, "%21" for its "!": freed, it must have been wiped by a
    # wipe the compiler keeps), no piece of the password on its stack (where the SIMD registers a strdup()
    # or memcpy() of it used are saved; its live copies are in the heap). 3 runs, names of 3 lengths.
    # On 574973c: the URI in every run, 4 or 5 copies of the password's end on the stack.
    mh1=$(od -An -N10 -tx1 /dev/urandom | tr -d ' \n'); mh2=$(od -An -N30 -tx1 /dev/urandom | tr -d ' \n')
    mem_pw="Mem-$mh1!$mh2"
    mem_ok=1
    for a in "${NODES[@]}"; do [ "$(rcli "$a" ACL SETUSER "rlmem$run" on ">$mem_pw" '~*' '+@all')" = OK ] || mem_ok=0; done
    nodes_mem=$(printf "redis://rlmem$run@%s," "${NODES[@]}"); nodes_mem=${nodes_mem%,}
    mem_bad=""
    for len in 1 30 60; do
        rm -f "$tmp/go" "$tmp/pids"
        REDLOCK_PASSWORD=$mem_pw "$BIN" -n "$nodes_mem" "$(res mem):$(printf "%${len}s" | tr ' ' x)" -- \
            sh -c 'echo "$PPID $$" >'"$tmp/pids; $hold_until_go" 2>"$tmp/err" &
        mpid=$!; started_pids+=("$mpid")
        wait_until 5000 file_has "$tmp/pids"
        read -r rpid cpid <"$tmp/pids"
        found=$(mem_copies "$rpid" "${mh1: -10}%21${mh2:0:10}" "${mh2: -24}")
        touch "$tmp/go"
        wait "$mpid"; rc=$?
        read -r uri_s uri_o tail_s tail_o <<<"$found"
        [ $rc -eq 0 ] && [ "$uri_s" = 0 ] && [ "$uri_o" = 0 ] && [ "$tail_s" = 0 ] ||
            mem_bad+="name +$len: rc=$rc, URI copies on the stack/elsewhere: ${uri_s:-?}/${uri_o:-?}, password's end on the stack: ${tail_s:-?} ($found $(cat "$tmp/err")); "
    done
    check password_not_left_in_memory '[ $mem_ok -eq 1 ] && [ -z "$mem_bad" ]' "ACL set: $mem_ok; $mem_bad"
else
    fail redlock_password_with_acl_user "ACL SETUSER failed"
fi
# an entry of REDLOCK_NODES that does not read as a node (with --nodes, it is not used) may hide a password: the variable goes
REDLOCK_NODES="${NODES[0]},redis://u:Junk-Pw-5@bad host" "$BIN" -n "$REDLOCK_TEST_NODES" "$(res envdrop)" -- env >"$tmp/env"; rc=$?
check command_env_unreadable_nodes_dropped '[ $rc -eq 0 ] && ! grep -q "Junk-Pw-5" "$tmp/env" && ! grep -q "^REDLOCK_NODES=" "$tmp/env"' "rc=$rc $(grep ^REDLOCK_NODES= "$tmp/env")"

# ---- signals to redlock are forwarded to COMMAND; released after it exits ----
for sig in INT TERM HUP QUIT USR1 USR2; do
    r=$(res "sig$sig"); rm -f "$tmp/ready"
    start_bg "$r" -- sh -c 'trap "exit 42" '"$sig"'; echo $$ >'"$tmp/ready"'; while :; do sleep 0.05; done'
    wait_until 3000 file_has "$tmp/ready"
    started_pids+=("$(cat "$tmp/ready")")
    kill -"$sig" "$bg"
    bwait "$bg"; rc=$?
    check "forward_sig$sig" '[ $rc -eq 42 ] && [ "$(keys_on "$r")" -eq 0 ]' "rc=$rc keys=$(keys_on "$r")"
done
# a signal the caller ignores (nohup) is not forwarded
r=$(res sigign); rm -f "$tmp/ready"
env --ignore-signal=HUP "$BIN" "$r" -- sh -c 'touch '"$tmp/ready"'; sleep 1; exit 5' & bg=$!; started_pids+=("$bg")
wait_until 3000 test -e "$tmp/ready"
kill -HUP "$bg"
bwait "$bg"; rc=$?
check ignored_signal_not_forwarded '[ $rc -eq 5 ]' "rc=$rc"

# ---- job control: COMMAND never runs while redlock is stopped; continued, it goes on only under a confirmed lock ----
# COMMAND of the stop checks: one process, not a shell (a shell's vfork child stopped before its exec
# keeps the shell itself from stopping, under any job-control shell). It writes its pid to $1, "ready" on
# stdout, then a line to $2 every 50 ms, $3 times (0: until killed; the checks give a bound).
ticker=(perl -e 'open(P, ">", $ARGV[0]) or die; print P "$$\n"; close P; open(T, ">>", $ARGV[1]) or die;
    select(T); $| = 1; select(STDOUT); $| = 1; print "ready\n";
    for (my $i = 0; !$ARGV[2] || $i < $ARGV[2]; $i++) { print T "x\n"; select(undef, undef, undef, 0.05) }')
tick_cmd=("${ticker[@]}" "$tmp/cpid" "$tmp/ticks" 600) # 30 s at most
r=$(res tstp); rm -f "$tmp/cpid" "$tmp/ticks"
start_bg_job -t 3000 "$r" -- "${tick_cmd[@]}" >/dev/null
wait_until 3000 ticks_at_least "$tmp/ticks" 3 # COMMAND runs under the watched lock
cpid=$(cat "$tmp/cpid"); started_pids+=("$cpid")
kill -TSTP "$bg"
wait_until 2000 is_stopped "$bg"; sr=$(pstate "$bg"); sc=$(pstate "$cpid")
n1=$(lines "$tmp/ticks"); sleep 0.3; n2=$(lines "$tmp/ticks")
check sigtstp_stops_command_then_redlock '[ "$sr" = T ] && [ "$sc" = T ] && [ "$n1" = "$n2" ]' "redlock '$sr', COMMAND '$sc', COMMAND's ticks $n1 -> $n2 while redlock was stopped"
kill -CONT "$bg"
wait_until 2000 is_running "$cpid"
n3=$(lines "$tmp/ticks"); sleep 0.2; n4=$(lines "$tmp/ticks")
tokn=$(rcli "${NODES[0]}" GET "$r")
check sigcont_continues_command_locked 'is_running "$bg" && [ "$n4" -gt "$n3" ] && [ -n "$tokn" ] && [ "$(held_on "$r" "$tokn")" -eq 5 ]' "redlock '$(pstate "$bg")', ticks $n3 -> $n4, held on $(held_on "$r" "$tokn")"
kill -TERM "$bg"; bwait "$bg"; rc=$?
check sigterm_after_continue '[ $rc -eq 143 ] && [ "$(keys_on "$r")" -eq 0 ]' "rc=$rc"
# stopped past the TTL: another redlock takes the lock meanwhile; when continued, redlock finds it gone
# and kills COMMAND where it stands (never resumed without the lock), exit 70
r=$(res tstplost); rm -f "$tmp/cpid" "$tmp/ticks"
start_bg_job -t 1000 "$r" -- "${tick_cmd[@]}" >/dev/null
wait_until 3000 ticks_at_least "$tmp/ticks" 3
cpid=$(cat "$tmp/cpid"); started_pids+=("$cpid")
kill -TSTP "$bg"; wait_until 2000 is_stopped "$bg"; sr=$(pstate "$bg")
n1=$(lines "$tmp/ticks")
"$BIN" -w 4000 "$r" -- true; rc2=$? # acquires once the TTL (1 s) of the stopped one's lock ran out
n2=$(lines "$tmp/ticks")
kill -CONT "$bg"; bwait "$bg"; rc=$?
n3=$(lines "$tmp/ticks")
check stopped_past_ttl_command_never_resumed '[ "$sr" = T ] && [ $rc2 -eq 0 ] && [ "$n1" = "$n2" ] && [ "$n2" = "$n3" ] && [ $rc -eq 70 ] && all_gone "$cpid"' "redlock '$sr' after SIGTSTP, second redlock rc=$rc2, ticks $n1 -> $n2 (while stopped) -> $n3 (after SIGCONT), rc=$rc, COMMAND '$(pstate "$cpid")'"
check stopped_past_ttl_message 'grep -q "lost the lock" "$tmp/bgerr" && grep -q "SIGKILL" "$tmp/bgerr"' "$(cat "$tmp/bgerr")"

# ---- the terminal (a pty, driven by tests/harness/cli/jobctl.py, a tiny job-control shell) ----
if ! command -v python3 >/dev/null 2>&1; then
    fail tty_tests "python3 missing (scripts/deps.sh installs it)"
else
    J=(python3 "$here/jobctl.py")
    # in the foreground, COMMAND reads the terminal (it has its foreground)
    r=$(res ttyread)
    out=$("${J[@]}" read --timeout 5 -- "$BIN" -t 1000 "$r" -- sh -c 'echo ready; read x; echo "got:$x"')
    check tty_command_reads_the_terminal 'grep -qx "exit=0" <<<"$out" && grep -q "got:hello" <<<"$out"' "$out"
    # in the background, COMMAND reading the terminal stops (SIGTTIN), redlock with it; "kill %1" ends both
    r=$(res ttyttin)
    out=$("${J[@]}" ttin --timeout 5 -- "$BIN" -t 1000 "$r" -- sh -c 'read x; echo "got:$x"')
    check tty_background_read_stops_redlock 'grep -qx "stopped=SIGTTIN" <<<"$out"' "$out"
    check tty_stopped_job_ends_on_sigterm 'grep -qx "exit=143" <<<"$out" && [ "$(keys_on "$r")" -eq 0 ]' "$out"
    # Ctrl-Z stops COMMAND (nothing written while stopped) and redlock; fg within the lock's validity: it goes on
    zcmd=("${ticker[@]}" "$tmp/cpid" "$tmp/ticks" 20)
    count_ticks='n1=$(wc -l <'"$tmp/ticks"'); sleep 0.4; n2=$(wc -l <'"$tmp/ticks"'); echo "ticks_while_stopped=$((n2 - n1))"; echo $n2 >'"$tmp/nstop"
    r=$(res ttyz); rm -f "$tmp/ticks"
    out=$("${J[@]}" ctrlz --stopped-for 0.5 --timeout 5 --during "$count_ticks" -- "$BIN" -t 3000 "$r" -- "${zcmd[@]}")
    check tty_ctrl_z_stops_command 'grep -qx "stopped=SIGTSTP" <<<"$out" && grep -qx "ticks_while_stopped=0" <<<"$out"' "$out"
    check tty_fg_continues_command 'grep -qx "exit=0" <<<"$out" && [ "$(lines "$tmp/ticks")" -eq 20 ]' "ticks=$(lines "$tmp/ticks") $out"
    # Ctrl-Z past the TTL, the lock taken by another meanwhile: after fg, COMMAND is killed, never resumed, exit 70
    r=$(res ttyzlost); rm -f "$tmp/ticks"
    out=$("${J[@]}" ctrlz --stopped-for 1.5 --timeout 6 --during "$BIN -w 4000 $r -- true; echo second=\$?; $count_ticks" -- "$BIN" -t 1000 "$r" -- "${zcmd[@]}")
    check tty_fg_after_lock_lost_kills_command 'grep -qx "second=0" <<<"$out" && grep -qx "ticks_while_stopped=0" <<<"$out" && grep -qx "exit=70" <<<"$out" && [ "$(lines "$tmp/ticks")" = "$(cat "$tmp/nstop")" ]' "ticks=$(lines "$tmp/ticks") at stop=$(cat "$tmp/nstop" 2>/dev/null) $out"
fi

# ---- a signal while the lock is being taken (--wait): the wait ends at once, COMMAND does not run, nothing of ours stays ----
# Another owner holds the key on nodes 1-3 (a quorum); on nodes 4 and 5 each attempt of the waiter sets
# it (and releases it after the failed attempt). The signal comes 0.5 s into a 6 s wait: the waiter must
# be gone well before the 5.5 s the wait had left (2 s: a round trip and a release take 100 ms at most).
# For SIGINT the lock frees up just after the signal: the waiter must not take it then. Whether it took
# the lock at all shows in its fence counter (--fencing, a prefix of its own): created only by a SET that
# reached a quorum (COMMAND, which the forwarded signal may kill before it does anything, cannot tell).
fence_keys() { local a n=0 k; for a in "${NODES[@]}"; do k=$(rcli "$a" --scan --pattern "$1*redlock:fence" | tr -d '\0'); [ -n "$k" ] && n=$((n + 1)); done; echo $n; }
for sig in TERM INT HUP; do
    pfx="acq:$run:$sig:"; r=w; rm -f "$tmp/ran"
    for i in 0 1 2; do rcli "${NODES[$i]}" SET "$pfx$r" foreign PX 20000 >/dev/null; done
    start_bg -w 6000 --fencing --prefix "$pfx" "$r" -- touch "$tmp/ran"
    sleep 0.5
    kill -"$sig" "$bg"; t0=$(ms)
    [ "$sig" = INT ] && for i in 0 1 2; do rcli "${NODES[$i]}" DEL "$pfx$r" >/dev/null; done
    bwait "$bg"; rc=$?; took=$(( $(ms) - t0 ))
    want=$(( 128 + $(kill -l "$sig") ))
    ours=$(( $(keys_on "$pfx$r") - $(held_on "$pfx$r" foreign) )); fenced=$(fence_keys "$pfx")
    check "wait_ended_by_sig$sig" '[ $rc -eq $want ] && [ $took -lt 2000 ] && [ ! -e "$tmp/ran" ] && [ "$fenced" = 0 ]' "rc=$rc (want $want) took=${took}ms after the signal, COMMAND ran: $([ -e "$tmp/ran" ] && echo yes || echo no), lock taken (fence counter on $fenced nodes)"
    check "wait_ended_by_sig${sig}_nothing_left" '[ "$ours" = 0 ]' "keys of the waiter left: $ours"
    for a in "${NODES[@]}"; do rcli "$a" DEL "$pfx$r" >/dev/null; done
done

# ---- lock loss: 3 of 5 nodes paused -> SIGTERM to COMMAND's group, exit 70 ----
r=$(res lost); rm -f "$tmp/ready" "$tmp/term"
start_bg -t 1000 --kill-grace 3000 "$r" -- sh -c 'trap "echo TERM >'"$tmp/term"'; exit 5" TERM; touch '"$tmp/ready"'; while :; do sleep 0.05; done'
wait_until 3000 test -e "$tmp/ready"
pause3; t0=$(ms)
bwait "$bg"; rc=$?; took=$(( $(ms) - t0 ))
resume3
check lost_exit_70 '[ $rc -eq 70 ]' "rc=$rc"
check lost_sigterm_to_command '[ -s "$tmp/term" ]'
check lost_detected_within_ttl '[ $took -lt 1000 ]' "took=${took}ms"
r=$(res lost2); rm -f "$tmp/ready" "$tmp/cpid"
start_bg -t 1000 --kill-grace 700 "$r" -- sh -c 'trap "" TERM; echo $$ >'"$tmp/cpid"'; touch '"$tmp/ready"'; while :; do sleep 0.05; done'
wait_until 3000 test -e "$tmp/ready"
t0=$(ms); pause3 # from before the pause: the loss (and so the grace) may begin while the nodes are being paused
bwait "$bg"; rc=$?; took=$(( $(ms) - t0 ))
resume3
cpid=$(cat "$tmp/cpid")
sleep 0.1
check lost_sigkill_after_grace '[ $rc -eq 70 ] && [ $took -ge 700 ] && ! kill -0 "$cpid" 2>/dev/null' "rc=$rc took=${took}ms"
check lost_message_says_why 'grep -q "lost the lock" "$tmp/bgerr" && grep -q "quorum" "$tmp/bgerr" && grep -q "SIGKILL" "$tmp/bgerr"' "$(cat "$tmp/bgerr")"
kill -KILL "$cpid" 2>/dev/null

# ---- --max-hold: no extension after MS; when the lock then expires COMMAND is ended as on a loss ----
r=$(res maxhold)
t0=$(ms)
"$BIN" -t 600 --max-hold 1000 --kill-grace 500 "$r" -- sleep 10 2>"$tmp/err"; rc=$?; took=$(( $(ms) - t0 ))
check max_hold_ends_hold '[ $rc -eq 70 ] && [ $took -ge 1000 ] && [ $took -lt 2500 ] && grep -q "max-hold" "$tmp/err"' "rc=$rc took=${took}ms $(cat "$tmp/err")"
check max_hold_lock_gone '[ "$(keys_on "$r")" -eq 0 ]'

# ---- no extension after COMMAND exits; redlock killed outright: the lock expires by its TTL ----
r=$(res noext)
"$BIN" -t 300 "$r" -- sleep 0.5
c0=$(evalsha_calls); sleep 0.5; c1=$(evalsha_calls)
check no_extension_after_exit '[ "$c0" = "$c1" ]' "$c0 -> $c1"
# COMMAND (a shell) and what it started (a sleep, in its process group) die with redlock
r=$(res sigkill); rm -f "$tmp/cpids"
start_bg -t 1000 "$r" -- sh -c 'sleep 30 & echo "$$ $!" >'"$tmp/cpids"'; wait'
wait_until 3000 file_has "$tmp/cpids"
read -r cpid gpid <"$tmp/cpids"; started_pids+=("$cpid" "$gpid")
sleep 1.2 # past the ttl: extended
before=$(keys_on "$r")
kill -KILL "$bg"; bwait "$bg" 2>/dev/null; t0=$(ms)
maxp=0; for a in "${NODES[@]}"; do p=$(rcli "$a" PTTL "$r"); [ "${p:-0}" -gt "$maxp" ] && maxp=$p; done
wait_until 1000 all_gone "$cpid" "$gpid"
check command_dies_with_redlock 'all_gone "$cpid" "$gpid"' "COMMAND: '$(pstate "$cpid")', its child: '$(pstate "$gpid")' after redlock's SIGKILL"
sleep_until $((t0 + 1100)) # the TTL (1 s) and a margin, counted from the kill
left=$(keys_on "$r")
check redlock_sigkill_expires_by_ttl '[ "$before" -eq 5 ] && [ "$maxp" -gt 0 ] && [ "$maxp" -le 1000 ] && [ "$left" -eq 0 ]' "before=$before pttl after kill=$maxp left=$left"
# also when redlock is killed while stopped with COMMAND's group
r=$(res killstopped); rm -f "$tmp/cpids"
start_bg_job -t 3000 "$r" -- sh -c 'sleep 30 & echo "$$ $!" >'"$tmp/cpids"'; wait'
wait_until 3000 file_has "$tmp/cpids"
read -r cpid gpid <"$tmp/cpids"; started_pids+=("$cpid" "$gpid")
kill -TSTP "$bg"; wait_until 2000 is_stopped "$bg"
kill -KILL "$bg"; bwait "$bg" 2>/dev/null
wait_until 1000 all_gone "$cpid" "$gpid"
check command_dies_with_stopped_redlock 'all_gone "$cpid" "$gpid"' "COMMAND: '$(pstate "$cpid")', its child: '$(pstate "$gpid")' after SIGKILL to the stopped redlock"

# ---- a node restarted empty: no second holder (docs/api.md "Restarted nodes", as the PHP API's 'auto') ----
# A holds the lock on exactly nodes 1-3 (4 and 5 held by another key while it takes it); node 1 is killed
# and restarted without its data; B, a new process, must not win 1+4+5 while A is valid (node 1 votes again after the grace:
# the longest TTL used, 6 s). The maxttl key is made 2.5 s before the restart (Redis counts uptime
# in whole seconds: a node younger than that key is told apart from a fresh cluster only past ~2 s).
# A starts 1 s before the restart, so its watchdog's first extension (at a third of the TTL, 2 s)
# comes after it: its connections, new then, must know node 1's old run_id from A's own, or they
# take the restarted node for one never seen and do not put A's key back there (A lost its lock).
r=restart
P=$(res "rs:") # a prefix of its own: its maxttl key is this check's (another suite's restarts are not)
"$BIN" --prefix "$P" -t 6000 restart0 -- true 2>"$tmp/err"; rc=$?
t0=$(ms)
sleep_until $((t0 + 1500))
rcli "${NODES[3]}" SET "$P$r" foreign PX 10000 >/dev/null; rcli "${NODES[4]}" SET "$P$r" foreign PX 10000 >/dev/null
start_bg --prefix "$P" -t 6000 "$r" -- sh -c 'echo $REDLOCK_TOKEN > "$0"; sleep 5' "$tmp/tok"
a=$bg
wait_until 3000 file_has "$tmp/tok"
rcli "${NODES[3]}" DEL "$P$r" >/dev/null; rcli "${NODES[4]}" DEL "$P$r" >/dev/null
ka=$(held_on "$P$r" "$(cat "$tmp/tok")")
sleep_until $((t0 + 2500))
bash tests/nodes.sh kill 1 >/dev/null; bash tests/nodes.sh restart 1 >/dev/null
"$BIN" --prefix "$P" -t 2000 "$r" -- true 2>"$tmp/err2"; rcb=$?
bwait "$a" 20; rca=$?
check restart_empty_no_second_holder '[ $rc -eq 0 ] && [ "$ka" = 3 ] && [ $rcb -ne 0 ] && [ $rca -eq 0 ]' \
    "first rc=$rc, A on $ka nodes, B rc=$rcb (must not be 0: B won the restarted node's vote) $(cat "$tmp/err2"), A rc=$rca $(cat "$tmp/bgerr")"

# ---- nodes that answer but do not vote: exit 69 names each with why, as the extension's QuorumException ----
# 3 nodes and a prefix of their own: a lock writes its maxttl key (6 s); 2.5 s later nodes 2 and 3 are
# restarted empty; a new redlock finds their uptime below that key's age on node 1, so they answer but stay
# out of the quorum: "2 of 3 nodes needed, 3 answered". Each must be named with why ("restarted N s ago, "
# and the rest of the restart check's reason: "votes in M s", or the voters it waits for). On 574973c the
# message ended there.
P2=$(res "nv:")
n3="${NODES[0]},${NODES[1]},${NODES[2]}"
"$BIN" -n "$n3" --prefix "$P2" -t 6000 nv0 -- true 2>"$tmp/err"; rc0=$?
t0=$(ms)
sleep_until $((t0 + 2500))
for i in 2 3; do bash tests/nodes.sh kill "$i" >/dev/null; bash tests/nodes.sh restart "$i" >/dev/null; done
"$BIN" -n "$n3" --prefix "$P2" nv -- true 2>"$tmp/err"; rc=$?
nv_why() { grep -q "${NODES[$1]} restarted [0-9]* s ago, [a-z]" "$tmp/err"; }
check no_vote_69_names_nodes_and_why '[ $rc0 -eq 0 ] && [ $rc -eq 69 ] && grep -q "(2 of 3 nodes needed, 3 answered)" "$tmp/err" && nv_why 1 && nv_why 2 && ! grep -q "${NODES[0]} " "$tmp/err"' \
    "first rc=$rc0, rc=$rc: $(cat "$tmp/err")"

# ---- TLS: a rediss:// node is never used in clear; the --tls-* settings ----
# a --tls-* file that cannot be read is named before any connection (usage error), as the extension names it;
# on 574973c every node failed at connect with "TLS CA store: system lib", exit 69
"$BIN" --tls-cafile "$tmp/missing-ca.crt" -n "rediss://${NODES[0]}" "$(res tls)" -- sh -c 'echo RAN' >"$tmp/out" 2>"$tmp/err"; rc=$?
check tls_cafile_missing_named_up_front '[ $rc -eq 64 ] && grep -q -- "--tls-cafile cannot be read: $tmp/missing-ca.crt (No such file or directory)" "$tmp/err" && ! grep -q RAN "$tmp/out"' "rc=$rc $(cat "$tmp/err")"
"$BIN" --tls-cert "$tmp" -n "rediss://${NODES[0]}" "$(res tls)" -- sh -c 'echo RAN' >"$tmp/out" 2>"$tmp/err"; rc=$?
check tls_cert_directory_named_up_front '[ $rc -eq 64 ] && grep -q -- "--tls-cert is not a regular file: $tmp" "$tmp/err" && ! grep -q RAN "$tmp/out"' "rc=$rc $(cat "$tmp/err")"
"$BIN" --tls-no-verify -n "rediss://${NODES[0]},rediss://${NODES[1]},rediss://${NODES[2]}" "$(res tls)" -- sh -c 'echo RAN' >"$tmp/out" 2>"$tmp/err"; rc=$?
check tls_node_not_in_clear '[ $rc -eq 69 ] && ! grep -q RAN "$tmp/out"' "rc=$rc $(cat "$tmp/err")"
# a build without OpenSSL refuses rediss:// nodes, exit 69, before any connection
if make -s -C redlock_core B="$tmp/build-notls" TLS=0 cli >"$tmp/notls.log" 2>&1; then
    "$tmp/build-notls/redlock" -n "rediss://${NODES[0]},rediss://${NODES[1]},rediss://${NODES[2]}" "$(res tls)" -- sh -c 'echo RAN' >"$tmp/out" 2>"$tmp/err2"; rc=$?
    check tls_refused_without_openssl '[ $rc -eq 69 ] && grep -q "does not support" "$tmp/err2" && ! grep -q RAN "$tmp/out"' "rc=$rc $(cat "$tmp/err2")"
else
    fail tls_refused_without_openssl "make TLS=0 cli failed: $(tail -n 5 "$tmp/notls.log")"
fi
if grep -q "does not support" "$tmp/err"; then
    echo "SKIP tls_*: this redlock is built without TLS (refused above)"
elif [ -z "${REDLOCK_TEST_TLS_NODES:-}" ] || [ ! -f "${REDLOCK_TEST_TLS_DIR:-}/ca.crt" ]; then
    echo "SKIP tls_*: no TLS test nodes (tests/nodes.sh start-tls)"
else
    D=$REDLOCK_TEST_TLS_DIR
    TN=$(sed 's#\([^,]*\)#rediss://\1#g' <<<"$REDLOCK_TEST_TLS_NODES")
    r=$(res tls)
    out=$("$BIN" -n "$TN" --tls-cafile "$D/ca.crt" "$r" -- sh -c 'echo RAN $REDLOCK_TOKEN' 2>"$tmp/err"); rc=$?
    check tls_cafile '[ $rc -eq 0 ] && [[ "$out" =~ ^RAN\ [0-9a-f]{40}$ ]]' "rc=$rc $out $(cat "$tmp/err")"
    "$BIN" -n "$TN" "$r" -- true 2>"$tmp/err"; rc=$?
    check tls_system_store_refuses_test_ca '[ $rc -eq 69 ] && grep -q "certificate verify failed" "$tmp/err"' "rc=$rc $(cat "$tmp/err")"
    "$BIN" -n "$TN" --tls-cafile "$D/other-ca.crt" "$r" -- true 2>"$tmp/err"; rc=$?
    check tls_wrong_ca_69 '[ $rc -eq 69 ] && grep -q "certificate verify failed" "$tmp/err"' "rc=$rc $(cat "$tmp/err")"
    "$BIN" -n "$TN" --tls-no-verify "$r" -- true 2>"$tmp/err"; rc=$?
    check tls_no_verify '[ $rc -eq 0 ]' "rc=$rc $(cat "$tmp/err")"
    "$BIN" -n "rediss://$REDLOCK_TEST_TLS_MTLS" --tls-cafile "$D/ca.crt" "$r" -- true 2>"$tmp/err"; rc=$?
    check tls_mutual_without_cert_69 '[ $rc -eq 69 ]' "rc=$rc $(cat "$tmp/err")"
    "$BIN" -n "rediss://$REDLOCK_TEST_TLS_MTLS" --tls-cafile "$D/ca.crt" --tls-cert "$D/client.crt" --tls-key "$D/client.key" "$r" -- true 2>"$tmp/err"; rc=$?
    check tls_mutual_cert_key '[ $rc -eq 0 ]' "rc=$rc $(cat "$tmp/err")"
    TU=$(sed "s#\\([^,]*\\)#rediss://$REDLOCK_TEST_TLS_USER@\\1#g" <<<"$REDLOCK_TEST_TLS_NODES")
    REDLOCK_PASSWORD=$REDLOCK_TEST_TLS_PASSWORD "$BIN" -n "$TU" --tls-cafile "$D/ca.crt" -t 600 "$r" -- sleep 1.5 2>"$tmp/err"; rc=$?
    check tls_password_and_watchdog_over_tls '[ $rc -eq 0 ]' "rc=$rc $(cat "$tmp/err")"
    REDLOCK_PASSWORD=Wrong-Tls-Pw "$BIN" -n "$TU" --tls-cafile "$D/ca.crt" "$r" -- true 2>"$tmp/err"; rc=$?
    check tls_wrong_password_69_not_shown '[ $rc -eq 69 ] && ! grep -q "Wrong-Tls-Pw" "$tmp/err"' "rc=$rc $(cat "$tmp/err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
