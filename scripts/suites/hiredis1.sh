#!/usr/bin/env bash
# hiredis1.sh -- the extension on hiredis 1.4.1 (../shared/third_party; the OS has 0.14):
# tests/harness/hiredis1/run.sh --build-only builds it and runs the C unit tests against it, then the
# .phpt suite runs against that build. Without ../shared it skips (a failure under CI=true).
. "$(dirname "$0")/lib.sh"
h1=$log_dir/hiredis1
bash tests/harness/hiredis1/run.sh --build-only "$h1" >"$log_dir/hiredis1-build.log" 2>&1; rc=$?
sed "s/^/    | /" "$log_dir/hiredis1-build.log" | tail -n 30
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
  if [ "$rc" -eq 0 ]; then
    count hiredis1-build 1 0 0
    run_phpt_sharded phpt-hiredis1 scripts/run-phpt.sh "$h1/ext/modules/redlock.so" "$phpt_shards"
  else
    count hiredis1-build 0 1 0
  fi
fi
suite_end
