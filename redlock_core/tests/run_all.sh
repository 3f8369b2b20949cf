#!/bin/sh
# run_all.sh -- run each core test binary, show its output, end with one summed
# "N passed, N failed" line; fails when any binary fails or prints no summary.
p=0 f=0 rc=0
for bin in "$@"; do
    out=$("$bin" 2>&1); r=$?
    printf '%s\n' "$out" | grep -v '^[0-9]* passed, [0-9]* failed$'
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n1)
    if [ -z "$line" ]; then echo "FAIL $bin (no summary; exit $r)"; f=$((f + 1)); rc=1; continue; fi
    bp=${line%% passed*}; bf=${line#*passed, }; bf=${bf%% failed*}
    p=$((p + bp)); f=$((f + bf))
    [ "$r" -ne 0 ] && { rc=1; [ "$bf" -eq 0 ] && f=$((f + 1)); }
done
echo "$p passed, $f failed"
[ "$rc" -eq 0 ] && [ "$f" -eq 0 ]
