#!/usr/bin/env bash
# nodes.sh -- real redis-server lock nodes on loopback for the test suites.
#
# Usage: tests/nodes.sh start [N] | stop | kill I | pause I | resume I |
#                       restart I | status | env
#        tests/nodes.sh run PORT DIR NAME
# I is a 1-based node index, or "aux" for the auxiliary node (counters for
# torture tests; never a lock node).
#
# The one launcher of every suite: the .phpt suite, PHPUnit (tests/fpm), the
# torture test and the benchmark use start/stop/...; the C unit tests
# (redlock_core/tests/unit_tests.c), which own their servers as child
# processes, use `run`: it execs one redis-server in the foreground (same pid)
# with the same command line, files DIR/NAME.{log,sock,rdb}.
#
# State lives in $REDLOCK_NODES_DIR (default /tmp/redlock-nodes):
#   nodeI.port nodeI.pid nodeI.log nodeI.sock  per node
#   count                                      number of lock nodes
#   env                                        sourceable, see HACKING.md
#
# Processes are only ever signalled by the pid in their pid file, and only
# when that pid is still a redis-server: several helpers may run their own
# node sets side by side with different state dirs.
#
# Exit status: 0 on success; 1 on usage errors or failures; `status` exits 3
# when some node is not up (down or paused).

set -u

DIR=${REDLOCK_NODES_DIR:-/tmp/redlock-nodes}
PORT_MIN=20000
PORT_MAX=60000
START_TRIES=20        # fresh ports tried per node before giving up
WAIT_TENTHS=50        # 5 s to answer PING after start

die() { echo "nodes.sh: $*" >&2; exit 1; }

usage() {
    echo "usage: $0 start [N] | stop | kill I | pause I | resume I | restart I | status | env | run PORT DIR NAME" >&2
    exit 1
}

command -v redis-server >/dev/null || die "redis-server not found"
command -v redis-cli >/dev/null || die "redis-cli not found"

# --- helpers -----------------------------------------------------------------

# Is something accepting connections on 127.0.0.1:$1 ?
port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

random_port() {
    echo $(( PORT_MIN + (RANDOM * 32768 + RANDOM) % (PORT_MAX - PORT_MIN + 1) ))
}

# State letter of a live process (R, S, T, Z, ...), empty when gone.
proc_state() {
    [ -r "/proc/$1/stat" ] || return 0
    # field 3 of /proc/pid/stat, after the parenthesised comm
    sed -e 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1
}

# True when $1 is a live (non-zombie) redis-server process.
is_redis_pid() {
    local pid=$1 st
    case "$pid" in ''|*[!0-9]*) return 1 ;; esac
    st=$(proc_state "$pid")
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'redis-server'
}

# The redis-server command line of every test node: NAME on 127.0.0.1:PORT, no
# persistence, its files in DIR (sets REDIS_ARGS).
redis_args() { # port dir name
    local port=$1 dir=$2 name=$3
    REDIS_ARGS=(--port "$port" --bind 127.0.0.1 --save "" --appendonly no --protected-mode no
                --dir "$dir" --dbfilename "$name.rdb" --logfile "$dir/$name.log")
    # unix socket too (optional, tests use it when present); sun_path is 108
    if [ ${#dir} -lt 90 ]; then
        REDIS_ARGS+=(--unixsocket "$dir/$name.sock" --unixsocketperm 700)
    fi
}

pid_of() { cat "$DIR/node$1.pid" 2>/dev/null; }
port_of() { cat "$DIR/node$1.port" 2>/dev/null; }

# PONG from the node on port $1, bounded by 1 s (a paused node never answers).
ping_port() {
    [ "$(timeout 1 redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" = PONG ]
}

# The pid the server on port $1 reports; used to make sure the PONG came from
# the process we started and not from someone else's server on that port.
server_pid() {
    timeout 1 redis-cli -h 127.0.0.1 -p "$1" info server 2>/dev/null |
        tr -d '\r' | sed -n 's/^process_id://p'
}

valid_index() {
    case "$1" in
        aux) [ -f "$DIR/nodeaux.port" ] ;;
        ''|*[!0-9]*|0) return 1 ;;
        *) [ -f "$DIR/node$1.port" ] ;;
    esac
}

indexes() {
    local n i
    n=$(cat "$DIR/count" 2>/dev/null || echo 0)
    for ((i = 1; i <= n; i++)); do echo "$i"; done
    [ -f "$DIR/nodeaux.port" ] && echo aux
}

# Wait until pid $1 has exited (bounded, 5 s); SIGKILL it if it lingers.
wait_gone() {
    local pid=$1 t
    for ((t = 0; t < 50; t++)); do
        is_redis_pid "$pid" || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    for ((t = 0; t < 20; t++)); do
        is_redis_pid "$pid" || return 0
        sleep 0.1
    done
    echo "nodes.sh: pid $pid did not exit" >&2
    return 1
}

# Stop node $1 by its pid file. $2 = TERM (clean) or KILL (crash).
stop_node() {
    local i=$1 sig=${2:-TERM} pid
    pid=$(pid_of "$i")
    if is_redis_pid "$pid"; then
        kill -CONT "$pid" 2>/dev/null   # a paused server cannot handle TERM
        kill -"$sig" "$pid" 2>/dev/null
        wait_gone "$pid" || return 1
    fi
    rm -f "$DIR/node$i.pid"
    return 0
}

# Launch node $1 on port $2 and wait until it answers. Non-zero when it did
# not come up (bind failure, someone else on the port, timeout).
launch() {
    local i=$1 port=$2 pid t logpos
    rm -f "$DIR/node$i.pid"
    logpos=$(stat -c %s "$DIR/node$i.log" 2>/dev/null || echo 0)
    redis_args "$port" "$DIR" "node$i"
    redis-server "${REDIS_ARGS[@]}" --daemonize yes --pidfile "$DIR/node$i.pid" \
        >/dev/null 2>&1 9>&- || return 1
    for ((t = 0; t < WAIT_TENTHS; t++)); do
        pid=$(pid_of "$i")
        # bind failures exit before the pid file is written
        if [ -z "$pid" ] && tail -c +$((logpos + 1)) "$DIR/node$i.log" 2>/dev/null |
                grep -q -e 'Failed listening' -e 'aborting'; then
            return 1
        fi
        if [ -n "$pid" ]; then
            if ! is_redis_pid "$pid"; then
                # daemon exited, usually "Address already in use"
                rm -f "$DIR/node$i.pid"
                return 1
            fi
            if ping_port "$port" && [ "$(server_pid "$port")" = "$pid" ]; then
                echo "$port" >"$DIR/node$i.port"
                return 0
            fi
        fi
        sleep 0.1
    done
    # did not answer in time: do not leave it behind
    pid=$(pid_of "$i")
    if is_redis_pid "$pid"; then
        kill -CONT "$pid" 2>/dev/null
        kill -KILL "$pid" 2>/dev/null
        wait_gone "$pid"
    fi
    rm -f "$DIR/node$i.pid"
    return 1
}

# Start node $1 on a fresh free port, retrying on bind failures.
start_fresh() {
    local i=$1 try port
    for ((try = 0; try < START_TRIES; try++)); do
        port=$(random_port)
        port_in_use "$port" && continue
        launch "$i" "$port" && return 0
    done
    echo "nodes.sh: could not start node $i (see $DIR/node$i.log)" >&2
    return 1
}

write_env() {
    local n i list=""
    n=$(cat "$DIR/count")
    for ((i = 1; i <= n; i++)); do
        list="$list${list:+,}127.0.0.1:$(port_of "$i")"
    done
    {
        echo "REDLOCK_TEST_NODES=$list"
        echo "REDLOCK_TEST_AUX=127.0.0.1:$(port_of aux)"
        echo "REDLOCK_NODES_DIR=$DIR"
    } >"$DIR/env.tmp" && mv -f "$DIR/env.tmp" "$DIR/env"
}

# --- commands ----------------------------------------------------------------

cmd_stop() {
    local i rc=0 f
    for f in "$DIR"/node*.pid; do
        [ -e "$f" ] || continue
        i=${f##*/node}
        i=${i%.pid}
        stop_node "$i" TERM || rc=1
    done
    rm -f "$DIR/env" "$DIR/count" "$DIR"/node*.port "$DIR"/node*.sock
    return $rc
}

cmd_start() {
    local n=${1:-5} i
    case "$n" in ''|*[!0-9]*|0) die "start: N must be a positive integer" ;; esac
    [ "$n" -le 100 ] || die "start: N too large"
    mkdir -p "$DIR" || die "cannot create $DIR"
    cmd_stop >/dev/null 2>&1
    rm -f "$DIR"/node*.log
    echo "$n" >"$DIR/count"
    for i in $(seq 1 "$n") aux; do
        if ! start_fresh "$i"; then
            cmd_stop >/dev/null 2>&1
            exit 1
        fi
    done
    write_env
    cat "$DIR/env"
}

cmd_status() {
    local i pid port st state rc=0 found=0
    for i in $(indexes); do
        found=1
        pid=$(pid_of "$i")
        port=$(port_of "$i")
        if is_redis_pid "$pid"; then
            st=$(proc_state "$pid")
            if [ "$st" = T ] || [ "$st" = t ]; then
                state=paused; rc=3
            elif ping_port "$port"; then
                state=up
            else
                state=unresponsive; rc=3
            fi
        else
            state=down; pid=-; rc=3
        fi
        printf 'node%s 127.0.0.1:%s pid %s %s\n' "$i" "$port" "$pid" "$state"
    done
    [ $found = 1 ] || { echo "no nodes in $DIR" >&2; return 3; }
    return $rc
}

cmd_signal_node() {   # pause / resume
    local i=$1 sig=$2 pid
    pid=$(pid_of "$i")
    is_redis_pid "$pid" || die "node $i is not running"
    kill -"$sig" "$pid" || die "kill -$sig $pid failed"
    # wait (bounded) until the state change is visible
    local t st
    for ((t = 0; t < 20; t++)); do
        st=$(proc_state "$pid")
        if [ "$sig" = STOP ]; then
            [ "$st" = T ] || [ "$st" = t ] && return 0
        else
            [ "$st" != T ] && [ "$st" != t ] && return 0
        fi
        sleep 0.05
    done
    die "node $i did not change state after SIG$sig"
}

cmd_restart() {
    local i=$1 port t
    port=$(port_of "$i")
    stop_node "$i" TERM || die "could not stop node $i"
    # same port; the old socket may take a moment to be released
    for ((t = 0; t < 10; t++)); do
        launch "$i" "$port" && return 0
        sleep 0.2
    done
    die "could not restart node $i on port $port (see $DIR/node$i.log)"
}

# Serialise commands that change state (parallel test runs).
lock_state() {
    mkdir -p "$DIR" || die "cannot create $DIR"
    if command -v flock >/dev/null; then
        exec 9>"$DIR/.lock"
        flock -w 30 9 || die "could not lock $DIR/.lock"
    fi
}

[ $# -ge 1 ] || usage
cmd=$1
shift

case "$cmd" in
    start)
        [ $# -le 1 ] || usage
        lock_state
        cmd_start "${1:-5}"
        ;;
    stop)
        [ $# -eq 0 ] || usage
        [ -d "$DIR" ] || exit 0
        lock_state
        cmd_stop
        ;;
    kill|pause|resume|restart)
        [ $# -eq 1 ] || usage
        valid_index "$1" || die "$cmd: no node '$1' in $DIR"
        lock_state
        case "$cmd" in
            kill) stop_node "$1" KILL || exit 1 ;;
            pause) cmd_signal_node "$1" STOP ;;
            resume) cmd_signal_node "$1" CONT ;;
            restart) cmd_restart "$1" ;;
        esac
        ;;
    status)
        [ $# -eq 0 ] || usage
        cmd_status
        ;;
    run)
        # the caller owns the process: no state dir, no pid file, no lock
        [ $# -eq 3 ] || usage
        case "$1" in ''|*[!0-9]*) die "run: PORT must be a number" ;; esac
        [ -d "$2" ] || die "run: no directory $2"
        redis_args "$1" "$2" "$3"
        exec redis-server "${REDIS_ARGS[@]}" --daemonize no
        ;;
    env)
        [ $# -eq 0 ] || usage
        [ -f "$DIR/env" ] || die "no env in $DIR (run: $0 start)"
        cat "$DIR/env"
        ;;
    -h|--help|help)
        usage
        ;;
    *)
        usage
        ;;
esac
