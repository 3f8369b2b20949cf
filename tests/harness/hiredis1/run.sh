#!/usr/bin/env bash
# hiredis1/run.sh -- the extension on hiredis 1.x (the OS ships 0.14): builds hiredis
# 1.4.1 from ../shared/third_party/hiredis-1.4.1.tar.gz into a private prefix, builds
# the extension against it (./configure --with-hiredis=PREFIX), checks that the .so
# really uses that hiredis (compiled with its headers, linked with a RUNPATH to it,
# and mapped from it in a running php), runs the core's C unit tests against it, then
# the whole .phpt suite on that build.
#
# Usage: tests/harness/hiredis1/run.sh [--build-only] [DIR]
#   DIR           work dir (default: mktemp -d, removed at exit unless KEEP=1);
#                 everything is built there, never in the repository.
#   --build-only  stop after the build, the link checks and the unit tests, leaving
#                 DIR/ext/modules/redlock.so (scripts/test.sh runs the .phpt suite
#                 itself, with its own nodes and counting).
# Env:
#   REDLOCK_SHARED_DIR  shared/ when it is not the checkout's ../shared
#   REDLOCK_TEST_NODES  nodes for the .phpt suite; when unset, 5 private nodes are
#                       started with tests/nodes.sh in DIR and stopped (by pid) at exit.
# Output: progress lines; DIR/core-unit.log ends with the unit tests' "N passed, N failed";
# the last line is "hiredis1: PASS (...)" exit 0, "hiredis1: FAIL: why" exit 1, or
# "hiredis1: SKIP: why" exit 77 when the tarball is absent.
set -uo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
build_only=0
work=
while [ $# -gt 0 ]; do
    case "$1" in
        --build-only) build_only=1 ;;
        -*) echo "usage: $0 [--build-only] [DIR]" >&2; exit 2 ;;
        *) work=$1 ;;
    esac
    shift
done

fail() { echo "hiredis1: FAIL: $*"; exit 1; }
log() { echo "hiredis1: $*"; }

shared=${REDLOCK_SHARED_DIR:-$root/../shared}
tarball="$shared/third_party/hiredis-1.4.1.tar.gz"
if [ ! -f "$tarball" ]; then
    echo "hiredis1: SKIP: $tarball is absent (hiredis 1.4.1's source is not part of the repository;" \
        "set REDLOCK_SHARED_DIR if shared/ is elsewhere): the extension was not built or tested on hiredis 1.x"
    exit 77
fi

own_work=0
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/redlock-hiredis1.XXXXXX") || fail "mktemp -d"
    own_work=1
fi
mkdir -p "$work" && work=$(cd "$work" && pwd) || fail "cannot use $work"
case "$work/" in "$root"/*) fail "the work dir $work is inside the repository" ;; esac
nodes_started=0
cleanup() {
    if [ "$nodes_started" = 1 ]; then
        REDLOCK_NODES_DIR="$work/nodes" bash "$root/tests/nodes.sh" stop >/dev/null 2>&1
    fi
    if [ "$own_work" = 1 ] && [ "${KEEP:-0}" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT

prefix="$work/prefix"
ext="$work/ext"
jobs=${MAKEFLAGS:--j2}

# 1. hiredis 1.4.1 into the private prefix (no TLS: the extension does not use it yet).
log "building hiredis from $(basename "$tarball") into $prefix"
rm -rf "$work/src" "$prefix" "$ext" "$work/core-unit.log"
mkdir -p "$work/src" && tar -xzf "$tarball" -C "$work/src" || fail "cannot unpack $tarball"
src=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d | head -n1)
[ -f "$src/hiredis.h" ] || fail "no hiredis.h in $tarball"
make -C "$src" "$jobs" PREFIX="$prefix" USE_SSL=0 install >"$work/hiredis-build.log" 2>&1 \
    || { tail -n 20 "$work/hiredis-build.log"; fail "hiredis build (log: $work/hiredis-build.log)"; }
macro() { sed -n "s/^#define $1 \\([0-9]*\\).*/\\1/p" "$prefix/include/hiredis/hiredis.h"; }
hv="$(macro HIREDIS_MAJOR).$(macro HIREDIS_MINOR).$(macro HIREDIS_PATCH)"
case "$hv" in 1.*) ;; *) fail "the built hiredis says version '$hv', not 1.x" ;; esac
lib=$(find "$prefix/lib" -maxdepth 1 -name 'libhiredis.so.*' -type f | head -n1)
[ -n "$lib" ] || fail "no libhiredis.so.* in $prefix/lib"
# upstream's v1.4.1 tag did not bump the version macros: its headers say 1.4.0,
# and so do phpinfo() and `php --ri redlock` (they show the macros)
tagv=$(basename "$tarball" .tar.gz); tagv=${tagv#hiredis-}
label=$tagv
[ "$hv" = "$tagv" ] || label="$tagv (headers say $hv)"
log "hiredis $label built: $(basename "$lib")"

# 2. The extension against it, from a copy of the tree (phpize artefacts stay out of it).
log "building the extension against $prefix"
mkdir -p "$ext"
(cd "$root" && git ls-files -z --cached --others --exclude-standard) \
    | (cd "$root" && xargs -0 -I{} sh -c '[ -f "$1" ] && cp --parents "$1" "$0"/ || true' "$ext" {}) \
    || fail "copy of the source tree"
[ -f "$ext/config.m4" ] || fail "copy of the source tree has no config.m4"
(
    cd "$ext" && phpize >/dev/null \
        && CFLAGS="-O2 -g" ./configure --with-hiredis="$prefix" \
        && make "$jobs"
) >"$work/ext-build.log" 2>&1 || { tail -n 30 "$work/ext-build.log"; fail "extension build (log: $work/ext-build.log)"; }
so="$ext/modules/redlock.so"
[ -f "$so" ] || fail "no $so"
if grep -E "(redlock|rl_[a-z]+)\.c:[0-9]+:[0-9]+: warning" "$work/ext-build.log"; then
    fail "compiler warnings in our sources against hiredis $label"
fi

# 3. It really is that hiredis: compiled with its headers (phpinfo shows the header
#    macros), linked with a RUNPATH into the prefix, and mapped from there at run time.
readelf -d "$so" | grep -E "(RUNPATH|RPATH).*\\[$prefix/lib\\]" >/dev/null \
    || fail "redlock.so has no RUNPATH to $prefix/lib: $(readelf -d "$so" | grep -E 'RUNPATH|RPATH|NEEDED' | tr -s ' ' | tr '\n' ';')"
ri=$(php -n -d "extension=$so" --ri redlock 2>&1) || fail "php cannot load $so: $ri"
shown=$(printf '%s\n' "$ri" | sed -n 's/^hiredis version => //p')
[ "$shown" = "$hv" ] || fail "php --ri redlock shows hiredis '$shown', the prefix's headers say $hv"
maps=$(php -n -d "extension=$so" -r 'echo file_get_contents("/proc/self/maps");' 2>&1) \
    || fail "php -r with $so: $maps"
printf '%s\n' "$maps" | grep -F "$lib" >/dev/null || fail "a php with $so does not map $lib"
if printf '%s\n' "$maps" | grep -E 'libhiredis' | grep -vF "$prefix/" >/dev/null; then
    fail "a php with $so also maps another libhiredis: $(printf '%s\n' "$maps" | grep libhiredis | grep -vF "$prefix/" | head -n1)"
fi
log "redlock.so uses $lib (RUNPATH; php --ri redlock: hiredis version => $shown)"

# 4. The core's C unit tests (ASan+UBSan) against it.
make -s -C "$ext/redlock_core" test HIREDIS_CFLAGS="-I$prefix/include" \
    HIREDIS_LIBS="-L$prefix/lib -Wl,-rpath,$prefix/lib -lhiredis" >"$work/core-unit.log" 2>&1
unit_rc=$?
unit=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/core-unit.log" | tail -n1)
ldd "$ext/redlock_core/build/unit_tests" 2>/dev/null | grep -F "$prefix/lib/" >/dev/null \
    || fail "the unit tests are not linked with $prefix/lib"
log "C unit tests on hiredis $label: ${unit:-no summary} (exit $unit_rc)"
[ "$unit_rc" -eq 0 ] || { tail -n 20 "$work/core-unit.log"; fail "C unit tests on hiredis $label"; }

# 4b. The reply parser's fuzz targets on this hiredis (it reads RESP3 types 0.14 refuses,
#     and refuses status lines 0.14 takes): a short bounded run each, when clang-14 is there.
fuzz="skipped (no clang-14)"
if command -v clang-14 >/dev/null; then
    make -s -C "$ext/redlock_core" B="$work/fuzz-build" HIREDIS_CFLAGS="-I$prefix/include" \
        HIREDIS_LIBS="-L$prefix/lib -Wl,-rpath,$prefix/lib -lhiredis" \
        "$work/fuzz-build/fuzz/fuzz_feed" "$work/fuzz-build/fuzz/fuzz_reply" >"$work/fuzz.log" 2>&1 \
        || { tail -n 20 "$work/fuzz.log"; fail "fuzz targets on hiredis $label: build"; }
    for t in fuzz_feed fuzz_reply; do
        mkdir -p "$work/fuzz-build/work/$t" "$work/fuzz-build/artifacts"
        ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            timeout 120 "$work/fuzz-build/fuzz/$t" -max_total_time="${HIREDIS1_FUZZ_TIME:-15}" -timeout=10 \
            -rss_limit_mb=2048 -artifact_prefix="$work/fuzz-build/artifacts/$t-" \
            "$work/fuzz-build/work/$t" "$ext/redlock_core/fuzz/corpus/$t" >>"$work/fuzz.log" 2>&1 \
            || { tail -n 20 "$work/fuzz.log"; fail "$t on hiredis $label (reproducer in $work/fuzz-build/artifacts)"; }
    done
    fuzz="fuzz_feed, fuzz_reply ${HIREDIS1_FUZZ_TIME:-15} s each: clean"
fi
log "fuzz targets on hiredis $label: $fuzz"

if [ "$build_only" = 1 ]; then
    echo "hiredis1: PASS (built against hiredis $label in $prefix: $so; unit tests $unit)"
    exit 0
fi

# 5. The whole .phpt suite on this build.
if [ -z "${REDLOCK_TEST_NODES:-}" ]; then
    nodes_started=1
    REDLOCK_NODES_DIR="$work/nodes" bash "$root/tests/nodes.sh" start 5 >/dev/null || fail "tests/nodes.sh start 5"
    set -a; . "$work/nodes/env"; set +a
fi
log ".phpt suite on hiredis $label against $REDLOCK_TEST_NODES"
NO_INTERACTION=1 REPORT_EXIT_STATUS=1 TEST_PHP_EXECUTABLE=$(command -v php) \
    bash "$root/scripts/run-phpt.sh" "$so" >"$work/phpt.log" 2>&1
phpt_rc=$?
grep -E '^(FAIL|BORK|WARN|LEAK|Tests (passed|failed|skipped))' "$work/phpt.log"
passed=$(sed -n 's/^Tests passed *: *\([0-9]*\).*/\1/p' "$work/phpt.log" | tail -n1)
[ "$phpt_rc" -eq 0 ] && [ "${passed:-0}" -gt 0 ] || fail ".phpt suite on hiredis $label (exit $phpt_rc; KEEP=1 keeps $work/phpt.log)"
echo "hiredis1: PASS (hiredis $label: unit tests $unit; .phpt ${passed} passed)"
exit 0
