#!/usr/bin/env bash
# hiredis1.sh -- the extension on hiredis 1.4.1 (../shared/third_party; the OS has 0.14):
# tests/harness/hiredis1/run.sh --build-only builds it, checks that it uses that hiredis, and runs
# the C unit tests and the reply fuzzers against it; the .phpt suite runs against that build beside
# the unit tests and fuzzers, from the moment the build is checked (run.sh's line "redlock.so uses").
# Without ../shared it skips (a failure under CI=true).
. "$(dirname "$0")/lib.sh"
h1=$log_dir/hiredis1
blog=$log_dir/hiredis1-build.log
bash tests/harness/hiredis1/run.sh --build-only "$h1" >"$blog" 2>&1 &
bpid=$!
at_exit "kill $bpid 2>/dev/null"
# bounded by run.sh's own steps: it ends, or it says the build is checked
while kill -0 "$bpid" 2>/dev/null && ! grep -q '^hiredis1: redlock.so uses ' "$blog"; do sleep 1; done
built=0
grep -q '^hiredis1: redlock.so uses ' "$blog" && built=1
[ $built = 1 ] && run_phpt_sharded phpt-hiredis1 scripts/run-phpt.sh "$h1/ext/modules/redlock.so" "$phpt_shards"
wait "$bpid"; rc=$?
sed "s/^/    | /" "$blog" | tail -n 30
if [ "$rc" -eq 77 ]; then
  count hiredis1 0 0 1 "$(shared_skips 1)"   # the tarball is absent: the reason is printed above
else
  if [ -f "$h1/core-unit.log" ]; then
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$h1/core-unit.log" | tail -n1)
    up=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p'); uf=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
    up=${up:-0}; uf=${uf:-0}
    [ "$rc" -ne 0 ] && [ "$up" -eq 0 ] && [ "$uf" -eq 0 ] && uf=1
    count c-unit-hiredis1 "$up" "$uf" 0
  fi
  if [ "$rc" -eq 0 ]; then count hiredis1-build 1 0 0; else count hiredis1-build 0 1 0; fi
  [ $built = 1 ] || count phpt-hiredis1 0 1 0   # no build to test
fi
suite_end
