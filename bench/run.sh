#!/usr/bin/env bash
# bench/run.sh — the redlock benchmark: lock+release cycles of this extension
# side by side with the PHP floor, a sequential PHP RedLock, symfony/lock and
# the raw C core, over real redis-server nodes it starts itself (loopback only).
#
#   bash bench/run.sh [--short] [--modes lan,loopback,slow,down]
#                     [--impls ext,ext_fenced,ext_tls,floor,seq,symfony,raw] [--ext PATH/redlock.so]
#                     [--build] [--cycles N] [--seconds S] [--tput-seconds S]
#                     [--no-tput] [--no-mem] [--no-callgrind] [--no-plot] [--no-contended] [--out DIR]
#
# Modes: loopback (all 5 nodes direct), lan (every node, and the floor's node,
# behind bench/delayproxy adding 1 ms each way), slow (loopback, node 5 behind
# a 10 ms-each-way proxy: 20 ms round trip), down (loopback, nodes 4 and 5 killed).
#
# ext_tls is ext over TLS (rediss://) on 5 TLS nodes of their own (tests/nodes.sh
# start-tls 5), through the same proxies in lan/slow, the same two killed in down;
# the report gives its ratio to ext and both first calls (connects + handshakes).
#
# Output: a table on stdout, $OUT/results.json, $OUT/latency.png (gnuplot;
# re-plot with `gnuplot $OUT/latency.gp`). Default OUT is bench/out.
# --short: a few hundred cycles per implementation, loopback + lan, no
# throughput/callgrind, < 30 s; exit 0 whatever the ratios, non-zero only if an
# implementation crashed (or the harness itself failed).
#
# The extension: --ext PATH, else $REDLOCK_SO, else <repo>/modules/redlock.so when
# it is newer than the sources and not a sanitizer build (and no --build), else a private build (rsync of the tree to
# $REDLOCK_BENCH_BUILD, default /tmp/redlock-bench-build-$UID, + scripts/build.sh).
# The raw C program is built against the core in that private copy.
set -u
set -o pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
PHP=${PHP:-php}

SHORT=0
MODES=""
IMPLS="ext,ext_fenced,ext_tls,floor,seq,symfony,raw"
EXT_SO=${REDLOCK_SO:-}
CYCLES=""
SECONDS_PER=""
TPUT_SECONDS=""
DO_TPUT=1 DO_MEM=1 DO_CG=1 DO_PLOT=1 FORCE_BUILD=0 DO_CONTENDED=1
OUT="$BENCH/out"
ARGS_ORIG="$*"

usage() { sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --short) SHORT=1 ;;
        --modes) MODES=$2; shift ;;
        --modes=*) MODES=${1#*=} ;;
        --impls) IMPLS=$2; shift ;;
        --impls=*) IMPLS=${1#*=} ;;
        --ext) EXT_SO=$2; shift ;;
        --ext=*) EXT_SO=${1#*=} ;;
        --cycles) CYCLES=$2; shift ;;
        --cycles=*) CYCLES=${1#*=} ;;
        --seconds) SECONDS_PER=$2; shift ;;
        --seconds=*) SECONDS_PER=${1#*=} ;;
        --tput-seconds) TPUT_SECONDS=$2; shift ;;
        --tput-seconds=*) TPUT_SECONDS=${1#*=} ;;
        --build) FORCE_BUILD=1 ;;
        --no-tput) DO_TPUT=0 ;;
        --no-mem) DO_MEM=0 ;;
        --no-callgrind) DO_CG=0 ;;
        --no-plot) DO_PLOT=0 ;;
        --no-contended) DO_CONTENDED=0 ;;
        --out) OUT=$2; shift ;;
        --out=*) OUT=${1#*=} ;;
        -h|--help) usage ;;
        *) echo "run.sh: unknown argument $1" >&2; usage ;;
    esac
    shift
done

if [ $SHORT = 1 ]; then
    : "${MODES:=loopback,lan}" "${CYCLES:=300}" "${SECONDS_PER:=1}" "${TPUT_SECONDS:=0.5}"
    DO_TPUT=0 DO_CG=0
else
    : "${MODES:=lan,loopback,slow,down}" "${CYCLES:=5000}" "${SECONDS_PER:=5}" "${TPUT_SECONDS:=3}"
fi
WARMUP=$(( CYCLES < 500 ? 20 : 100 ))

mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
# Everything of this run (nodes, binaries, raw outputs) lives in a private
# directory, so runs never share nodes; the raw outputs are copied to $OUT/raw
# at the end. Runs are serialised on a machine-wide lock (they would disturb
# each other's numbers); after 10 minutes of waiting this one goes on anyway.
RUNDIR=$(mktemp -d /tmp/redlock-bench.XXXXXX) || exit 1
WORK="$RUNDIR/raw"
KEEP="$OUT/raw"
mkdir -p "$WORK" "$RUNDIR/bin"
export REDLOCK_NODES_DIR="$RUNDIR/nodes"
note() { echo "bench: $*" >&2; echo "$*" >>"$WORK/notes.txt"; }

has() { case ",$IMPLS," in *",$1,"*) return 0 ;; esac; return 1; }

# ---------------------------------------------------------------- cleanup -----
PROXY_PIDS=()
NODES_STARTED=0
cleanup() {
    local p
    for p in "${PROXY_PIDS[@]}"; do
        kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
    done
    PROXY_PIDS=()
    if [ $NODES_STARTED = 1 ]; then
        bash "$REPO/tests/nodes.sh" stop >/dev/null 2>&1
        NODES_STARTED=0
    fi
}
trap 'cleanup; rm -rf "$RUNDIR"' EXIT
trap 'exit 130' INT TERM

LOCKFILE=${REDLOCK_BENCH_LOCK:-/tmp/redlock-bench.lock}
if command -v flock >/dev/null && exec 8>>"$LOCKFILE"; then
    if ! flock -n 8; then
        echo "bench: another benchmark run holds $LOCKFILE; waiting (at most 10 min)..." >&2
        flock -w 600 8 || note "ran concurrently with another benchmark run: numbers disturbed"
    fi
fi

# ------------------------------------------------------------------ build -----
T_START=$(date +%s.%N)
make -s -C "$BENCH" proxy OUT="$RUNDIR/bin" >/dev/null || { echo "bench: cannot build delayproxy" >&2; exit 1; }
PROXY="$RUNDIR/bin/delayproxy"

BUILD=${REDLOCK_BENCH_BUILD:-/tmp/redlock-bench-build-$(id -u)}
private_copy() {
    [ -d "$BUILD/.synced" ] && return 0
    mkdir -p "$BUILD" &&
        rsync -a --delete --exclude /.git --filter=':- .gitignore' "$REPO/" "$BUILD/" &&
        mkdir -p "$BUILD/.synced"
}
rm -rf "$BUILD/.synced" 2>/dev/null

RAW=""
if has raw; then
    if [ -f "$REPO/redlock_core/rl.h" ] && [ -f "$REPO/redlock_core/Makefile" ]; then
        if private_copy && make -s -C "$BUILD/redlock_core" >"$WORK/core-build.log" 2>&1 &&
            make -s -C "$BENCH" raw OUT="$RUNDIR/bin" CORE_DIR="$BUILD/redlock_core" >>"$WORK/core-build.log" 2>&1; then
            RAW="$RUNDIR/bin/raw_cycle"
        else
            note "raw: core or raw_cycle did not build (see $KEEP/core-build.log); row skipped"
        fi
    else
        note "raw: redlock_core/rl.h or its Makefile missing; row skipped"
    fi
fi

newer_than_sources() {   # $1 newer than every extension/core source?
    local f
    for f in "$REPO"/redlock.c "$REPO"/php_redlock.h "$REPO"/redlock_arginfo.h "$REPO"/redlock_core/*.[ch] "$REPO"/redlock_core/*/*.[ch]; do
        [ -e "$f" ] || continue
        [ "$f" -nt "$1" ] && return 1
    done
    return 0
}
if has ext || has ext_fenced || has ext_tls || [ $DO_MEM = 1 ] || [ $DO_CG = 1 ]; then
    if [ -n "$EXT_SO" ]; then
        [ -f "$EXT_SO" ] || { echo "bench: --ext $EXT_SO: no such file" >&2; exit 1; }
    elif [ $FORCE_BUILD = 0 ] && [ -f "$REPO/modules/redlock.so" ] && newer_than_sources "$REPO/modules/redlock.so" &&
        ! grep -q sanitize "$REPO/modules/.build-flags" 2>/dev/null; then
        EXT_SO="$REPO/modules/redlock.so"
    elif [ -f "$REPO/redlock.c" ] && [ -f "$REPO/scripts/build.sh" ]; then
        echo "bench: building the extension in $BUILD ..." >&2
        if private_copy && (cd "$BUILD" && bash scripts/build.sh) >"$WORK/ext-build.log" 2>&1 &&
            [ -f "$BUILD/modules/redlock.so" ]; then
            EXT_SO="$BUILD/modules/redlock.so"
        else
            note "ext: the extension did not build (see $KEEP/ext-build.log); row skipped"
        fi
    else
        note "ext: redlock.c or scripts/build.sh missing; extension row skipped"
    fi
    if [ -n "$EXT_SO" ] && ! "$PHP" -d "extension=$EXT_SO" -r 'exit(extension_loaded("redlock") ? 0 : 1);' 2>>"$WORK/ext-build.log"; then
        note "ext: $EXT_SO does not load; row skipped"
        EXT_SO=""
    fi
fi
[ -n "$EXT_SO" ] && EXT_SO=$(cd "$(dirname "$EXT_SO")" && pwd)/$(basename "$EXT_SO")

if has symfony && [ ! -f "$BENCH/vendor/autoload.php" ] && [ ! -f /usr/share/php/Symfony/Component/Lock/autoload.php ]; then
    note "symfony: symfony/lock not installed (bash bench/deps.sh); row skipped"
fi
note "other PHP RedLock libraries (ronnylt/redlock-php, signe/redlock-php, php-lock/lock, malkusch/lock, ...) are not on the reachable Packagist mirror; not benchmarked"

# ------------------------------------------------------------------ nodes -----
bash "$REPO/tests/nodes.sh" start 5 >"$WORK/nodes.txt" 2>&1 8>&- || { cat "$WORK/nodes.txt" >&2; echo "bench: cannot start nodes" >&2; exit 1; }
NODES_STARTED=1
# shellcheck disable=SC1091
. "$REDLOCK_NODES_DIR/env"
IFS=, read -r -a NODE <<<"$REDLOCK_TEST_NODES"
NN=${#NODE[@]}
TLS_NODE=()
if has ext_tls; then
    if bash "$REPO/tests/nodes.sh" start-tls "$NN" >"$WORK/nodes-tls.txt" 2>&1 8>&-; then
        # shellcheck disable=SC1091
        . "$REDLOCK_NODES_DIR/env"
        export REDLOCK_TEST_TLS_DIR
        IFS=, read -r -a TLS_NODE <<<"$REDLOCK_TEST_TLS_NODES"
    else
        note "ext_tls: tests/nodes.sh start-tls failed (see $KEEP/nodes-tls.txt); row skipped"
    fi
fi

PROXY_SEQ=0
start_proxy() {   # $1 delay µs, rest: upstream host:port...; sets PROXY_LIST (comma-separated)
    local delay=$1 ready m=() u t
    shift
    PROXY_SEQ=$((PROXY_SEQ + 1))
    ready="$WORK/proxy.$PROXY_SEQ.ready"
    for u in "$@"; do m+=("0:${u%:*}:${u##*:}"); done
    "$PROXY" -d "$delay" -r "$ready" "${m[@]}" >/dev/null 2>>"$WORK/proxy.log" </dev/null 8>&- &
    PROXY_PIDS+=($!)
    for ((t = 0; t < 50; t++)); do
        [ -s "$ready" ] && break
        sleep 0.1
    done
    [ -s "$ready" ] || { echo "bench: delayproxy did not start" >&2; exit 1; }
    read -r _ ports <"$ready"
    local out=() p
    for p in $ports; do out+=("127.0.0.1:$p"); done
    PROXY_LIST=$(IFS=,; echo "${out[*]}")
}
stop_proxies() {
    local p
    for p in "${PROXY_PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    PROXY_PIDS=()
}

# ------------------------------------------------------------- run one impl ---
CRASHED=0
impl_cmd() {   # $1 impl → the command (array IMPL_CMD); non-zero when not runnable
    IMPL_CMD=()
    case "$1" in
        ext|ext_fenced) [ -n "$EXT_SO" ] || return 1; IMPL_CMD=("$PHP" -d "extension=$EXT_SO" "$BENCH/impl/$1.php") ;;
        ext_tls) [ -n "$EXT_SO" ] && [ ${#TLS_NODE[@]} -gt 0 ] || return 1
            IMPL_CMD=("$PHP" -d "extension=$EXT_SO" "$BENCH/impl/ext_tls.php") ;;
        floor|seq|symfony) IMPL_CMD=("$PHP" "$BENCH/impl/$1.php") ;;
        raw) [ -n "$RAW" ] || return 1; IMPL_CMD=("$RAW") ;;
        *) return 1 ;;
    esac
}
run_impl() {   # $1 impl, $2 output file, rest: args
    local impl=$1 out=$2 rc
    shift 2
    impl_cmd "$impl" || { echo '{"impl":"'"$impl"'","ok":false,"skipped":true,"note":"not available"}' >"$out"; return 0; }
    timeout 300 "${IMPL_CMD[@]}" "$@" >"$out" 2>"$out.err"
    rc=$?
    if [ $rc != 0 ] || ! "$PHP" -r 'exit(is_array(json_decode(file_get_contents($argv[1]), true)) ? 0 : 1);' "$out"; then
        echo "bench: $impl crashed (exit $rc) with: ${IMPL_CMD[*]} $*" >&2
        tail -5 "$out.err" >&2
        echo '{"impl":"'"$impl"'","ok":false,"crashed":true,"exit":'"$rc"'}' >"$out"
        CRASHED=1
    fi
}

IFS=, read -r -a MODE_LIST <<<"$MODES"
IFS=, read -r -a IMPL_LIST <<<"$IMPLS"
for mode in "${MODE_LIST[@]}"; do
    TLS_LIST=${REDLOCK_TEST_TLS_NODES:-}
    case "$mode" in
        loopback) LIST=$REDLOCK_TEST_NODES ;;
        lan)
            start_proxy 1000 "${NODE[@]}"; LIST=$PROXY_LIST
            [ ${#TLS_NODE[@]} -gt 0 ] && { start_proxy 1000 "${TLS_NODE[@]}"; TLS_LIST=$PROXY_LIST; } ;;
        slow)
            start_proxy 10000 "${NODE[$((NN - 1))]}"
            LIST=$(IFS=,; echo "${NODE[*]:0:$((NN - 1))}"),$PROXY_LIST
            if [ ${#TLS_NODE[@]} -gt 0 ]; then
                start_proxy 10000 "${TLS_NODE[$((NN - 1))]}"
                TLS_LIST=$(IFS=,; echo "${TLS_NODE[*]:0:$((NN - 1))}"),$PROXY_LIST
            fi ;;
        down)
            bash "$REPO/tests/nodes.sh" kill $((NN - 1)) >/dev/null && bash "$REPO/tests/nodes.sh" kill "$NN" >/dev/null ||
                { echo "bench: cannot kill nodes" >&2; exit 1; }
            if [ ${#TLS_NODE[@]} -gt 0 ]; then
                bash "$REPO/tests/nodes.sh" kill "tls$((NN - 1))" >/dev/null && bash "$REPO/tests/nodes.sh" kill "tls$NN" >/dev/null ||
                    { echo "bench: cannot kill TLS nodes" >&2; exit 1; }
            fi
            LIST=$REDLOCK_TEST_NODES ;;
        *) echo "bench: unknown mode $mode" >&2; exit 2 ;;
    esac
    echo "bench: mode $mode (nodes $LIST)" >&2
    echo "$LIST" >"$WORK/nodes_$mode.txt"
    for impl in "${IMPL_LIST[@]}"; do
        l=$LIST
        [ "$impl" = ext_tls ] && l=$TLS_LIST
        run_impl "$impl" "$WORK/lat_${mode}_$impl.json" --nodes="$l" --cycles="$CYCLES" \
            --seconds="$SECONDS_PER" --warmup="$WARMUP"
    done
    # 8-process throughput on distinct resources (not in --short)
    if [ $DO_TPUT = 1 ]; then
        for impl in "${IMPL_LIST[@]}"; do
            impl_cmd "$impl" || continue
            start_at=$("$PHP" -r 'printf("%.3f", microtime(true) + 2.0);')
            pids=()
            l=$LIST
            [ "$impl" = ext_tls ] && l=$TLS_LIST
            for w in 1 2 3 4 5 6 7 8; do
                timeout 300 "${IMPL_CMD[@]}" --nodes="$l" --cycles=10000000 --seconds="$TPUT_SECONDS" \
                    --warmup=20 --no-lat --start-at="$start_at" >"$WORK/tput_${mode}_${impl}_$w.json" 2>"$WORK/tput_${mode}_${impl}_$w.err" &
                pids+=($!)
            done
            for p in "${pids[@]}"; do
                wait "$p" || { echo "bench: $impl crashed in the 8-process run ($mode)" >&2; CRASHED=1; }
            done
        done
    fi
    case "$mode" in
        lan|slow) stop_proxies ;;
        down)
            bash "$REPO/tests/nodes.sh" restart $((NN - 1)) >/dev/null 8>&- && bash "$REPO/tests/nodes.sh" restart "$NN" >/dev/null 8>&- ||
                { echo "bench: cannot restart nodes" >&2; exit 1; }
            if [ ${#TLS_NODE[@]} -gt 0 ]; then
                bash "$REPO/tests/nodes.sh" restart "tls$((NN - 1))" >/dev/null 8>&- &&
                    bash "$REPO/tests/nodes.sh" restart "tls$NN" >/dev/null 8>&- ||
                    { echo "bench: cannot restart TLS nodes" >&2; exit 1; }
            fi ;;
    esac
done

# ----------------------------------------------------------------- memory -----
if [ $DO_MEM = 1 ]; then
    for impl in ext floor seq symfony; do
        has "$impl" || continue
        run_impl "$impl" "$WORK/mem_hold_$impl.json" --nodes="$REDLOCK_TEST_NODES" --hold=1000
    done
    if [ -n "$EXT_SO" ]; then
        "$PHP" "$BENCH/tools/mem_request.php" "$PHP" "$EXT_SO" "$REDLOCK_TEST_NODES" >"$WORK/mem_request.json" 2>"$WORK/mem_request.err" ||
            { echo "bench: mem_request failed" >&2; tail -3 "$WORK/mem_request.err" >&2; }
    fi
fi

# --------------------------------------------------------------- callgrind ----
if [ $DO_CG = 1 ]; then
    if command -v valgrind >/dev/null; then
        for impl in ext floor raw; do
            has "$impl" || continue
            impl_cmd "$impl" || continue
            ir=()
            for n in 20 220; do
                f="$WORK/callgrind_${impl}_$n.out"
                timeout 300 valgrind --tool=callgrind --callgrind-out-file="$f" "${IMPL_CMD[@]}" \
                    --nodes="$REDLOCK_TEST_NODES" --cycles=$n --warmup=10 --no-lat >/dev/null 2>"$f.log" ||
                    { echo "bench: callgrind of $impl failed (see $f.log)" >&2; break; }
                ir+=("$(sed -n 's/^summary: *//p; s/^totals: *//p' "$f" | head -1 | awk '{print $1}')")
            done
            [ ${#ir[@]} = 2 ] && echo "{\"impl\":\"$impl\",\"ir_20\":${ir[0]},\"ir_220\":${ir[1]},\"ir_per_cycle\":$(( (ir[1] - ir[0]) / 200 ))}" >"$WORK/callgrind_$impl.json"
        done
    else
        note "valgrind not installed: no callgrind figures (bash bench/deps.sh)"
    fi
fi

cleanup
rm -rf "$KEEP" && cp -a "$WORK" "$KEEP" || { echo "bench: cannot write $KEEP" >&2; exit 1; }
WORK=$KEEP

# ----------------------------------------------------------------- report -----
T_END=$(date +%s.%N)
CMD="bash bench/run.sh${ARGS_ORIG:+ $ARGS_ORIG}"
"$PHP" "$BENCH/report.php" --work="$WORK" --out="$OUT" --modes="$MODES" --impls="$IMPLS" \
    --command="$CMD" --short="$SHORT" --ext="${EXT_SO}" --plot="$DO_PLOT" \
    --elapsed="$("$PHP" -r "echo round($T_END - $T_START, 1);")" || { echo "bench: report failed" >&2; exit 1; }

# ------------------------------------------------------- contended (one resource) --
# bench/contended.sh: burst and steady scenarios, waiting acquires side by side
# (--short: ext and its polling mode, burst of 20, 4 processes for 2 s)
if [ $DO_CONTENDED = 1 ] && [ -n "$EXT_SO" ]; then
    echo
    cargs=(--ext "$EXT_SO" --out "$OUT")
    [ $SHORT = 1 ] && cargs+=(--short)
    bash "$BENCH/contended.sh" "${cargs[@]}" 2>"$OUT/contended.err" 8>&- ||
        { echo "bench: the contended run failed (crash or overlap; see $OUT/contended.err)" >&2; tail -3 "$OUT/contended.err" >&2; CRASHED=1; }
fi

if [ $CRASHED = 1 ]; then
    echo "bench: at least one implementation crashed" >&2
    exit 1
fi
exit 0
