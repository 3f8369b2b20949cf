#!/usr/bin/env bash
# fpm.sh -- PHP-FPM and CLI process tests (PHPUnit, real php-fpm); skipped tests are named in
# PHPUnit's --verbose list.
. "$(dirname "$0")/lib.sh"
need_so
nodes_up
REDLOCK_SO="$so" phpunit --verbose -c tests/harness/fpm/phpunit.xml >"$log_dir/fpm.log" 2>&1; rc=$?
tail -n 25 "$log_dir/fpm.log" | sed "s/^/    | /"
read -r fp ff fs < <(phpunit_count "$log_dir/fpm.log" "$rc")
count fpm "$fp" "$ff" "$fs"
suite_end
