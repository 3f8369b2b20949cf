#!/usr/bin/env bash
# fuzz.sh [seconds] [target...] -- long libFuzzer runs of the core's targets.
#
# Builds redlock_core/build/fuzz/<target> (clang-14, ASan+UBSan+libFuzzer)
# and runs each target for [seconds] (default 600) on all cores but one,
# growing a private corpus in redlock_core/build/fuzz/work/<target> seeded
# from redlock_core/fuzz/corpus/<target> (never written to). Crashes leave
# their reproducer in redlock_core/build/fuzz/artifacts/; rerun one with
#   redlock_core/build/fuzz/<target> <file>
# Exit status: non-zero if any target found a crash, leak or timeout.
set -u
cd "$(dirname "$0")/../redlock_core" || exit 1

SECS=${1:-600}
shift || true
TARGETS=${*:-fuzz_uri fuzz_reply fuzz_nodes}
case "$SECS" in ''|*[!0-9]*) echo "usage: $0 [seconds] [target...]" >&2; exit 1 ;; esac

command -v clang-14 >/dev/null || { echo "fuzz.sh: clang-14 missing (apt-get install -y clang-14 libclang-rt-14-dev)" >&2; exit 1; }
make -s fuzz || exit 1

JOBS=$(( $(nproc) > 1 ? $(nproc) - 1 : 1 ))
rc=0
for t in $TARGETS; do
    [ -x "build/fuzz/$t" ] || { echo "fuzz.sh: unknown target $t" >&2; rc=1; continue; }
    mkdir -p "build/fuzz/work/$t" build/fuzz/artifacts
    echo "== $t: ${SECS}s, $JOBS job(s)"
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "./build/fuzz/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
        -jobs="$JOBS" -workers="$JOBS" -print_final_stats=1 \
        -artifact_prefix="build/fuzz/artifacts/$t-" \
        "build/fuzz/work/$t" "fuzz/corpus/$t" >"build/fuzz/$t.log" 2>&1
    r=$?
    # with -jobs, each worker writes fuzz-N.log in the current directory
    cat fuzz-*.log >>"build/fuzz/$t.log" 2>/dev/null; rm -f fuzz-*.log
    grep -E '^(Done|==[0-9]+==ERROR|SUMMARY)' "build/fuzz/$t.log" | sort | uniq -c | head -20
    if [ $r -ne 0 ] || grep -q 'SUMMARY:' "build/fuzz/$t.log"; then
        echo "== $t: FAILED (log: redlock_core/build/fuzz/$t.log)"; rc=1
        ls build/fuzz/artifacts/"$t"-* 2>/dev/null
    else
        echo "== $t: ok"
    fi
done
exit $rc
