#!/usr/bin/env bash
# nodes.sh -- real redis-server lock nodes on loopback for the test suites.
#
# Usage: tests/nodes.sh start [N] | start-tls [N] | stop | kill I | pause I |
#                       resume I | restart I | status | env
#        tests/nodes.sh run PORT DIR NAME
#        tests/nodes.sh certs DIR
#        tests/nodes.sh run-tls PORT DIR NAME CERTDIR KIND
# I is a 1-based node index, "aux" for the auxiliary node (counters for
# torture tests; never a lock node), or a TLS node: tls1..tlsN, tlsm, tlsx.
#
# The one launcher of every suite: the .phpt suite, PHPUnit (tests/harness/fpm), the
# torture test and the benchmark use start/stop/...; the C unit tests
# (redlock_core/tests/nodes_fixture.c, watchdog_tests.c), which own their servers as child
# processes, use `run`: it execs one redis-server in the foreground (same pid)
# with the same command line, files DIR/NAME.{log,sock,rdb}.
#
# State lives in $REDLOCK_NODES_DIR (default /tmp/redlock-nodes):
#   nodeI.port nodeI.pid nodeI.log nodeI.sock  per node
#   nodeI.tls                                  TLS nodes: their KIND (below)
#   count, tlscount                            number of lock nodes, of TLS lock nodes
#   tls/                                       the test certificates (certs)
#   env                                        sourceable, see HACKING.md
#
# TLS (start-tls, after start: start stops every node): `certs DIR` makes,
# with the openssl CLI, a CA (ca.crt), a server certificate for localhost and
# 127.0.0.1 signed by it (server.crt/.key), an unrelated CA (other-ca.crt), an
# expired server certificate (expired.crt/.key), a client certificate
# (client.crt/.key, and client-enc.key: the same key encrypted with the
# passphrase in $TLS_PASSPHRASE), capath/ (the CA, hashed for OpenSSL's capath). start-tls N starts, TLS port only
# (--port 0), on free ports, KIND
#   tls      N lock nodes tls1..tlsN, --tls-auth-clients no
#   mtls     one node tlsm, --tls-auth-clients yes (client certificates of the CA)
#   expired  one node tlsx presenting the expired certificate
# each with the ACL user $TLS_USER/$TLS_PASSWORD besides the default user,
# and adds REDLOCK_TEST_TLS_* to env. `run-tls` execs one such node in the
# foreground (the C tests), as `run` does.
#
# Processes are only ever signalled by the pid in their pid file, and only
# when that pid is still a redis-server: several helpers may run their own
# node sets side by side with different state dirs.
#
# REDIS_SERVER: the server program (default redis-server; valkey-server runs the
# same command lines: tests/harness/platforms/run.sh runs the suites on Valkey nodes).
#
# Exit status: 0 on success; 1 on usage errors or failures; `status` exits 3
# when some node is not up (down or paused).

set -u

DIR=${REDLOCK_NODES_DIR:-/tmp/redlock-nodes}
PORT_MIN=20000
PORT_MAX=60000
START_TRIES=20        # fresh ports tried per node before giving up
WAIT_TENTHS=50        # 5 s to answer PING after start
TLS_USER=rltls        # an ACL user of the TLS nodes (AUTH over TLS)
TLS_PASSWORD=tls-secret
TLS_PASSPHRASE=tls-key-passphrase   # of tls/client-enc.key

die() { echo "nodes.sh: $*" >&2; exit 1; }

usage() {
    echo "usage: $0 start [N] | start-tls [N] | stop | kill I | pause I | resume I | restart I | status | env |" \
         "run PORT DIR NAME | certs DIR | run-tls PORT DIR NAME CERTDIR tls|mtls|expired" >&2
    exit 1
}

REDIS_SERVER=${REDIS_SERVER:-redis-server}
command -v "$REDIS_SERVER" >/dev/null || die "$REDIS_SERVER not found"
command -v redis-cli >/dev/null || die "redis-cli not found"

# --- helpers -----------------------------------------------------------------

# Is something accepting connections on 127.0.0.1:$1 ?
port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Node ports stay out of the kernel's ephemeral range: a node restarted on its port
# (restart, kill + start) must not find it taken meanwhile as the source port of
# some client connection (seen: "bind: Address already in use" on a busy machine).
read -r EPH_LOW EPH_HIGH </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || { EPH_LOW=32768 EPH_HIGH=60999; }
if [ $((EPH_LOW - 1 - PORT_MIN)) -ge 1000 ]; then
    [ "$PORT_MAX" -ge "$EPH_LOW" ] && PORT_MAX=$((EPH_LOW - 1))
elif [ $((65000 - EPH_HIGH)) -ge 1000 ]; then
    PORT_MIN=$((EPH_HIGH + 1)) PORT_MAX=65000
fi
random_port() {
    echo $(( PORT_MIN + (RANDOM * 32768 + RANDOM) % (PORT_MAX - PORT_MIN + 1) ))
}

# State letter of a live process (R, S, T, Z, ...), empty when gone.
proc_state() {
    [ -r "/proc/$1/stat" ] || return 0
    # field 3 of /proc/pid/stat, after the parenthesised comm
    sed -e 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1
}

# True when $1 is a live (non-zombie) redis-server (or valkey-server) process.
is_redis_pid() {
    local pid=$1 st
    case "$pid" in ''|*[!0-9]*) return 1 ;; esac
    st=$(proc_state "$pid")
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE '(redis|valkey)-server'
}

# The redis-server command line of every test node: NAME on 127.0.0.1:PORT, no
# persistence, its files in DIR (sets REDIS_ARGS). With KIND and CERTDIR: a
# TLS node, TLS on PORT and no plaintext port (see the head of this file).
redis_args() { # port dir name [kind certdir]
    local port=$1 dir=$2 name=$3 kind=${4:-} certs=${5:-} cert=server auth=no
    REDIS_ARGS=(--port "$port" --bind 127.0.0.1 --save "" --appendonly no --protected-mode no
                --dir "$dir" --dbfilename "$name.rdb" --logfile "$dir/$name.log")
    if [ -n "$kind" ]; then
        [ "$kind" = expired ] && cert=expired
        [ "$kind" = mtls ] && auth=yes
        REDIS_ARGS=(--port 0 --tls-port "$port" "${REDIS_ARGS[@]:2}"
                    --tls-cert-file "$certs/$cert.crt" --tls-key-file "$certs/$cert.key"
                    --tls-ca-cert-file "$certs/ca.crt" --tls-auth-clients "$auth"
                    --user "$TLS_USER" on ">$TLS_PASSWORD" '~*' '&*' '+@all')
        return 0
    fi
    # unix socket too (optional, tests use it when present); sun_path is 108
    if [ ${#dir} -lt 90 ]; then
        REDIS_ARGS+=(--unixsocket "$dir/$name.sock" --unixsocketperm 700)
    fi
}

pid_of() { cat "$DIR/node$1.pid" 2>/dev/null; }
port_of() { cat "$DIR/node$1.port" 2>/dev/null; }
tls_kind_of() { cat "$DIR/node$1.tls" 2>/dev/null; }

# redis-cli arguments to reach node $1 (TLS nodes: the test CA, the client
# certificate; the expired one unverified) (sets CLI_ARGS)
cli_args() {
    local kind
    kind=$(tls_kind_of "$1")
    CLI_ARGS=()
    [ -n "$kind" ] || return 0
    CLI_ARGS=(--tls --cacert "$DIR/tls/ca.crt" --cert "$DIR/tls/client.crt" --key "$DIR/tls/client.key")
    [ "$kind" = expired ] && CLI_ARGS+=(--insecure)
    return 0
}

# PONG from node $2 on port $1, bounded by 1 s (a paused node never answers).
ping_port() {
    cli_args "${2:-}"
    [ "$(timeout 1 redis-cli -h 127.0.0.1 -p "$1" "${CLI_ARGS[@]}" ping 2>/dev/null)" = PONG ]
}

# The pid the server (node $2) on port $1 reports; used to make sure the PONG came from
# the process we started and not from someone else's server on that port.
server_pid() {
    cli_args "${2:-}"
    timeout 1 redis-cli -h 127.0.0.1 -p "$1" "${CLI_ARGS[@]}" info server 2>/dev/null |
        tr -d '\r' | sed -n 's/^process_id://p'
}

valid_index() {
    case "$1" in
        aux|tlsm|tlsx) [ -f "$DIR/node$1.port" ] ;;
        tls[1-9]*) case "${1#tls}" in *[!0-9]*) return 1 ;; esac; [ -f "$DIR/node$1.port" ] ;;
        ''|*[!0-9]*|0) return 1 ;;
        *) [ -f "$DIR/node$1.port" ] ;;
    esac
}

indexes() {
    local n i
    n=$(cat "$DIR/count" 2>/dev/null || echo 0)
    for ((i = 1; i <= n; i++)); do echo "$i"; done
    [ -f "$DIR/nodeaux.port" ] && echo aux
    n=$(cat "$DIR/tlscount" 2>/dev/null || echo 0)
    for ((i = 1; i <= n; i++)); do echo "tls$i"; done
    [ -f "$DIR/nodetlsm.port" ] && echo tlsm
    [ -f "$DIR/nodetlsx.port" ] && echo tlsx
    return 0
}

# The test certificates in $1 (openssl CLI; EC P-256, valid 30 days; made
# again when older than 7 days or incomplete). See the head of this file.
gen_certs() {
    local d=$1 t
    command -v openssl >/dev/null || die "openssl (the CLI) not found (scripts/deps.sh)"
    if [ -f "$d/.complete" ] && [ -z "$(find "$d/.complete" -mtime +7 2>/dev/null)" ]; then
        return 0
    fi
    mkdir -p "$d" || die "cannot create $d"
    rm -rf "${d:?}"/* "$d/.complete"
    (
        set -e
        cd "$d"
        umask 077
        key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
        ca() { # name subject
            key "$1.key"
            openssl req -x509 -new -key "$1.key" -subj "/CN=$2" -days 30 -out "$1.crt" \
                -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
        }
        ca ca "redlock test CA"
        ca other-ca "redlock unrelated test CA"
        cat >ca.cnf <<'EOF_CNF'
[ca]
default_ca = test
[test]
dir = .
database = cadb/index.txt
serial = cadb/serial
new_certs_dir = cadb
certificate = ca.crt
private_key = ca.key
default_md = sha256
default_days = 30
policy = any
unique_subject = no
[any]
commonName = supplied
[server]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1
[client]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
EOF_CNF
        mkdir -p cadb
        : >cadb/index.txt
        echo 1000 >cadb/serial
        sign() { # name subject extensions [ca dates...]
            local n=$1 subj=$2 ext=$3
            shift 3
            key "$n.key"
            openssl req -new -key "$n.key" -subj "/CN=$subj" -out "$n.csr" 2>/dev/null
            openssl ca -batch -config ca.cnf -extensions "$ext" -notext "$@" -in "$n.csr" -out "$n.crt" 2>/dev/null
            rm -f "$n.csr"
        }
        sign server localhost server
        sign expired localhost server -startdate 20200101000000Z -enddate 20200102000000Z
        sign client "redlock test client" client
        openssl pkey -in client.key -aes256 -passout "pass:$TLS_PASSPHRASE" -out client-enc.key 2>/dev/null
        # a capath directory: the CA under its subject hash (openssl rehash)
        mkdir -p capath
        cp ca.crt capath/
        openssl rehash capath 2>/dev/null
        # readable by the tests' other users (php-fpm workers run as the same user here)
        chmod 644 ./*.crt ./*.key capath/*
        chmod 755 . capath
        touch .complete
    ) || die "could not make the test certificates in $d"
    for t in server client; do
        openssl verify -CAfile "$d/ca.crt" "$d/$t.crt" >/dev/null 2>&1 || die "certs: $t.crt does not verify"
    done
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
    local i=$1 port=$2 pid t logpos kind
    rm -f "$DIR/node$i.pid"
    logpos=$(stat -c %s "$DIR/node$i.log" 2>/dev/null || echo 0)
    kind=$(tls_kind_of "$i")
    redis_args "$port" "$DIR" "node$i" "$kind" "$DIR/tls"
    "$REDIS_SERVER" "${REDIS_ARGS[@]}" --daemonize yes --pidfile "$DIR/node$i.pid" \
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
            if ping_port "$port" "$i" && [ "$(server_pid "$port" "$i")" = "$pid" ]; then
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
    local n i list="" tls=""
    n=$(cat "$DIR/count" 2>/dev/null || echo 0)
    for ((i = 1; i <= n; i++)); do
        list="$list${list:+,}127.0.0.1:$(port_of "$i")"
    done
    n=$(cat "$DIR/tlscount" 2>/dev/null || echo 0)
    for ((i = 1; i <= n; i++)); do
        tls="$tls${tls:+,}127.0.0.1:$(port_of "tls$i")"
    done
    {
        if [ -f "$DIR/count" ]; then
            echo "REDLOCK_TEST_NODES=$list"
            echo "REDLOCK_TEST_AUX=127.0.0.1:$(port_of aux)"
        fi
        echo "REDLOCK_NODES_DIR=$DIR"
        if [ -f "$DIR/tlscount" ]; then
            echo "REDLOCK_TEST_TLS_NODES=$tls"
            echo "REDLOCK_TEST_TLS_MTLS=127.0.0.1:$(port_of tlsm)"
            echo "REDLOCK_TEST_TLS_EXPIRED=127.0.0.1:$(port_of tlsx)"
            echo "REDLOCK_TEST_TLS_DIR=$DIR/tls"
            echo "REDLOCK_TEST_TLS_USER=$TLS_USER"
            echo "REDLOCK_TEST_TLS_PASSWORD=$TLS_PASSWORD"
            echo "REDLOCK_TEST_TLS_PASSPHRASE=$TLS_PASSPHRASE"
        fi
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
    rm -f "$DIR/env" "$DIR/count" "$DIR/tlscount" "$DIR"/node*.port "$DIR"/node*.sock "$DIR"/node*.tls
    return $rc
}

# Stop the TLS nodes only (start-tls again).
cmd_stop_tls() {
    local i rc=0
    for i in $(indexes); do
        [ -n "$(tls_kind_of "$i")" ] || continue
        stop_node "$i" TERM || rc=1
        rm -f "$DIR/node$i.port" "$DIR/node$i.tls"
    done
    rm -f "$DIR/tlscount"
    return $rc
}

cmd_start_tls() {
    local n=${1:-3} i
    case "$n" in ''|*[!0-9]*|0) die "start-tls: N must be a positive integer" ;; esac
    [ "$n" -le 100 ] || die "start-tls: N too large"
    mkdir -p "$DIR" || die "cannot create $DIR"
    gen_certs "$DIR/tls"
    cmd_stop_tls >/dev/null 2>&1
    rm -f "$DIR"/nodetls*.log
    echo "$n" >"$DIR/tlscount"
    for i in $(seq 1 "$n") m x; do
        case "$i" in
            m) echo mtls >"$DIR/nodetls$i.tls" ;;
            x) echo expired >"$DIR/nodetls$i.tls" ;;
            *) echo tls >"$DIR/nodetls$i.tls" ;;
        esac
        if ! start_fresh "tls$i"; then
            cmd_stop_tls >/dev/null 2>&1
            write_env
            exit 1
        fi
    done
    write_env
    cat "$DIR/env"
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
            elif ping_port "$port" "$i"; then
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
    start-tls)
        [ $# -le 1 ] || usage
        lock_state
        cmd_start_tls "${1:-3}"
        ;;
    certs)
        [ $# -eq 1 ] || usage
        gen_certs "$1"
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
        exec "$REDIS_SERVER" "${REDIS_ARGS[@]}" --daemonize no
        ;;
    run-tls)
        [ $# -eq 5 ] || usage
        case "$1" in ''|*[!0-9]*) die "run-tls: PORT must be a number" ;; esac
        [ -d "$2" ] || die "run-tls: no directory $2"
        [ -f "$4/.complete" ] || die "run-tls: no certificates in $4 (tests/nodes.sh certs $4)"
        case "$5" in tls|mtls|expired) ;; *) die "run-tls: KIND is tls, mtls or expired" ;; esac
        redis_args "$1" "$2" "$3" "$5" "$4"
        exec "$REDIS_SERVER" "${REDIS_ARGS[@]}" --daemonize no
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
