#!/usr/bin/env bash
# run.sh -- the framework adapters (integrations/symfony, integrations/laravel) against real nodes.
# For each suite it installs the framework from Packagist with Composer into a project outside the
# repository (the adapter comes in through a path repository), then runs the adapter's PHPUnit
# suite (Debian's phpunit) with the extension loaded.
#
#   bash tests/harness/integrations/run.sh [suite...]     suites: symfony-6.4 symfony-7 symfony-semaphore laravel-12 (default: all)
#
# symfony-semaphore installs symfony/semaphore from ../shared/reference/symfony-semaphore (a
# Composer path repository: it is not on the Packagist mirror these machines reach) and runs
# its upstream AbstractStoreTestCase (../shared/reference/symfony-semaphore-tests); without
# shared/ it reports itself skipped, with the reason.
#
# Environment:
#   REDLOCK_SO          the extension to load (default: modules/redlock.so of this checkout)
#   REDLOCK_TEST_NODES  the lock nodes (tests/nodes.sh env); unset: the suites start their own
#   REDLOCK_INTEG_DIR   where the projects are installed (default: a temp dir, removed at the end)
#   COMPOSER_CACHE_DIR  Composer's download cache (default ~/.cache/composer): later runs reuse it
#   REDLOCK_SHARED_DIR  shared/ when not the checkout's ../shared (Symfony's upstream store tests)
#   REDLOCK_INTEG_INSTALL_TIMEOUT  seconds per install (default 150)
#
# A failed install (Packagist unreachable, a dependency conflict) is a failure, never a skip.
# Ends with one line "integrations: N passed, N failed, N skipped" (PHPUnit's tests).
set -uo pipefail
cd "$(dirname "$0")/../../.."
root=$(pwd)
# shellcheck source=../../phpunit_count.sh
. tests/phpunit_count.sh

export REDLOCK_SO=${REDLOCK_SO:-$root/modules/redlock.so}
[ -f "$REDLOCK_SO" ] || { echo "run.sh: $REDLOCK_SO not found (bash scripts/build.sh)"; echo "integrations: 0 passed, 1 failed, 0 skipped"; exit 1; }
command -v composer >/dev/null && command -v phpunit >/dev/null || {
  echo "run.sh: composer and phpunit are needed (bash scripts/deps.sh)"; echo "integrations: 0 passed, 1 failed, 0 skipped"; exit 1; }

own_work=0
work=${REDLOCK_INTEG_DIR:-}
if [ -z "$work" ]; then work=$(mktemp -d /tmp/redlock-integ.XXXXXX); own_work=1; fi
mkdir -p "$work"
own_nodes=0
cleanup() {
  [ $own_nodes = 1 ] && bash tests/nodes.sh stop >/dev/null 2>&1
  [ $own_work = 1 ] && rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${REDLOCK_TEST_NODES:-}" ]; then
  export REDLOCK_NODES_DIR="$work/nodes"
  bash tests/nodes.sh start 5 >/dev/null || { echo "run.sh: tests/nodes.sh start failed"; echo "integrations: 0 passed, 1 failed, 0 skipped"; exit 1; }
  own_nodes=1
  set -a; . "$REDLOCK_NODES_DIR/env"; set +a
fi
export COMPOSER_CACHE_DIR=${COMPOSER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/composer}
export COMPOSER_NO_INTERACTION=1 COMPOSER_DISABLE_XDEBUG_WARN=1
install_timeout=${REDLOCK_INTEG_INSTALL_TIMEOUT:-150}

# suite -> adapter folder, its Composer name, the framework package and its constraint
declare -A adapter=([symfony-6.4]=symfony [symfony-7]=symfony [symfony-semaphore]=symfony [laravel-12]=laravel)
declare -A name=([symfony]=redlock/symfony-lock [laravel]=redlock/laravel-lock)
declare -A framework=([symfony-6.4]=symfony/lock [symfony-7]=symfony/lock [symfony-semaphore]=symfony/semaphore [laravel-12]=laravel/framework)
declare -A constraint=([symfony-6.4]=6.4.* [symfony-7]=^7.0 [symfony-semaphore]=7.2.x-dev [laravel-12]=12.*)
# the PHPUnit configuration of a suite (default: the adapter's phpunit.xml.dist)
declare -A phpunit_cfg=([symfony-semaphore]=phpunit-semaphore.xml.dist)
shared_dir=${REDLOCK_SHARED_DIR:-$root/../shared}
semaphore_src="$shared_dir/reference/symfony-semaphore"
# what a suite's tests need besides: the Symfony ones, http-kernel's ServicesResetter (what kernel.reset runs)
declare -A extra=([symfony-6.4]=', "symfony/http-kernel": "6.4.*"' [symfony-7]=', "symfony/http-kernel": "^7.0"'
  [symfony-semaphore]=', "symfony/lock": "^7.0"')
# more Composer repositories of a suite
declare -A more_repos=([symfony-semaphore]=", {\"type\": \"path\", \"url\": \"$semaphore_src\", \"options\": {\"symlink\": false, \"versions\": {\"symfony/semaphore\": \"7.2.x-dev\"}}}")

suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(symfony-6.4 symfony-7 symfony-semaphore laravel-12)
passed=0 failed=0 skipped=0

for s in "${suites[@]}"; do
  [ -n "${adapter[$s]:-}" ] || { echo "run.sh: unknown suite $s"; failed=$((failed + 1)); continue; }
  a=${adapter[$s]}
  if [ "$s" = symfony-semaphore ] && [ ! -f "$semaphore_src/composer.json" ]; then
    echo "$s: skipped: symfony/semaphore is not on the Packagist mirror and $semaphore_src is absent (shared/ not next to the checkout; set REDLOCK_SHARED_DIR)"
    skipped=$((skipped + 1))
    continue
  fi
  dir="$work/$s"
  mkdir -p "$dir"
  cat >"$dir/composer.json" <<JSON
{
    "name": "redlock-tests/$s",
    "type": "project",
    "repositories": [{"type": "path", "url": "$root/integrations/$a", "options": {"symlink": true}}${more_repos[$s]:-}],
    "require": {"${name[$a]}": "*@dev", "${framework[$s]}": "${constraint[$s]}"${extra[$s]:-}},
    "config": {"allow-plugins": false}
}
JSON
  t0=$(date +%s)
  # the extension is loaded only by the tests, not by the php running Composer
  if ! timeout "$install_timeout" composer update -d "$dir" --no-progress --prefer-dist --no-audit \
        --ignore-platform-req=ext-redlock >"$dir/install.log" 2>&1; then
    tail -n 15 "$dir/install.log" | sed 's/^/  | /'
    echo "$s: FAIL composer install of ${framework[$s]} ${constraint[$s]} (Packagist unreachable or no install in ${install_timeout}s)"
    failed=$((failed + 1))
    continue
  fi
  t1=$(date +%s)
  version=$(php -r 'require $argv[1]; echo Composer\InstalledVersions::getPrettyVersion($argv[2]);' \
    "$dir/vendor/autoload.php" "${framework[$s]}" 2>/dev/null)
  echo "$s: installed ${framework[$s]} $version in $((t1 - t0)) s"
  REDLOCK_COMPOSER_AUTOLOAD="$dir/vendor/autoload.php" \
    php -d "extension=$REDLOCK_SO" "$(command -v phpunit)" --verbose -c "integrations/$a/${phpunit_cfg[$s]:-phpunit.xml.dist}" >"$dir/phpunit.log" 2>&1
  rc=$?
  t2=$(date +%s)
  grep -E '^(OK|Tests:|There w|[0-9]+\) |FAILURES|ERRORS)|skipped|Skipped' "$dir/phpunit.log" | head -n 40 | sed 's/^/  | /'
  # PHPUnit's summary, counted as scripts/test.sh counts the fpm suite
  read -r p ff fs < <(phpunit_count "$dir/phpunit.log" "$rc")
  [ "$ff" -gt 0 ] && sed -n '/^There w/,$p' "$dir/phpunit.log" | head -n 60 | sed 's/^/  | /'
  # a suite that skipped everything tested nothing
  [ "$p" -eq 0 ] && [ "$ff" -eq 0 ] && ff=1 && echo "$s: FAIL every test skipped"
  echo "$s: ${framework[$s]} $version: $p passed, $ff failed, $fs skipped (phpunit $((t2 - t1)) s)"
  passed=$((passed + p)); failed=$((failed + ff)); skipped=$((skipped + fs))
done
echo "integrations: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
