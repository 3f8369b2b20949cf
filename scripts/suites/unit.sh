#!/usr/bin/env bash
# unit.sh -- the core's C unit tests (redlock_core, ASan+UBSan; they start their own redis-servers).
. "$(dirname "$0")/lib.sh"
make -s -C redlock_core test >"$log_dir/unit.log" 2>&1; rc=$?
tail -n 15 "$log_dir/unit.log" | sed "s/^/    | /"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log_dir/unit.log" | tail -n1)
up=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p'); uf=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
up=${up:-0}; uf=${uf:-0}
[ "$rc" -ne 0 ] && [ "$uf" -eq 0 ] && uf=1
count c-unit "$up" "$uf" 0
suite_end
