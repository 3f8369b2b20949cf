#!/usr/bin/env bash
# integrations.sh -- the framework adapters (PHPUnit): Symfony Lock store on symfony/lock 6.4 and
# 7.x, Laravel lock driver on laravel/framework 12.x (Composer installs from Packagist, outside the
# repo). tests/harness/integrations/run.sh counts each PHPUnit summary and ends with one line.
. "$(dirname "$0")/lib.sh"
need_so
nodes_up
REDLOCK_SO="$so" bash tests/harness/integrations/run.sh >"$log_dir/integrations.log" 2>&1; rc=$?
grep -vE '^\s*$' "$log_dir/integrations.log" | tail -n 30 | sed "s/^/    | /"
summary_count integrations "$log_dir/integrations.log" "$rc" "$(shared_skips 1000000)"
suite_end
