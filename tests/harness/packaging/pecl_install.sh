#!/usr/bin/env bash
# pecl_install.sh -- release round trip: `pecl package` the tree, install the
# tarball offline into a PRIVATE prefix, load the installed .so, smoke it.
#
# Usage: tests/harness/packaging/pecl_install.sh [--regen]
#   --regen   regenerate package.xml's <contents> in the temp copy from git
#             (tracked + untracked-not-ignored files) before packaging; without
#             it package.xml is packaged as it is in the tree.
# Env:
#   REDLOCK_TEST_NODES  comma-separated 127.0.0.1:port list for the smoke test.
#                       When unset, 3 nodes are started with tests/nodes.sh in a
#                       private state dir and stopped (by pid) at exit.
#   KEEP=1              keep the temp dir (printed) for inspection.
#   MAKEFLAGS           passed to make (default -j2).
# Output: progress on stderr; the last line on stdout is
#   "pecl_install: PASS (...)"  exit 0,  or  "pecl_install: FAIL: <why>"  exit 1.
#
# Nothing outside the temp dir is touched: pecl runs with its own config file
# (`pear config-create`), so its registry, doc_dir and test_dir live in the
# temp dir and no php.ini is edited; and because pecl copies a built
# extension to `php-config --extension-dir` whatever its ext_dir setting says
# (and its --packagingroot breaks the build: "could not chdir"), pecl is given
# php_suffix=-redlockpkg and finds private phpize-redlockpkg/php-config-redlockpkg
# wrappers first in PATH; the php-config wrapper reports a private --prefix and
# --extension-dir and passes everything else to the real php-config.
set -uo pipefail

root=$(cd "$(dirname "$0")/../../.." && pwd)
regen=0
case "${1:-}" in
    "") ;;
    --regen) regen=1 ;;
    *) echo "usage: $0 [--regen]" >&2; exit 2 ;;
esac

fail() {
    echo "pecl_install: FAIL: $*"
    exit 1
}
log() { echo "pecl_install: $*" >&2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/redlock-pecl.XXXXXX") && [ -n "$work" ] && [ -d "$work" ] \
    || fail "mktemp -d"
nodes_started=0
cleanup() {
    if [ "$nodes_started" = 1 ]; then
        REDLOCK_NODES_DIR="$work/nodes" bash "$root/tests/nodes.sh" stop >/dev/null 2>&1
    fi
    if [ "${KEEP:-0}" = 1 ]; then
        echo "pecl_install: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT

for tool in pecl pear php phpize php-config tar; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool not found (apt-get install php-dev php-pear)"
done

# 1. A private copy (the tree may hold phpize artefacts or be in use).
log "copying $root to $work/src"
mkdir -p "$work/src" || fail "mkdir $work/src"
(cd "$root" && tar --warning=no-file-ignored --exclude=./bench/out --exclude=./modules --exclude=./.libs --exclude='*.lo' --exclude='*.o' -cf - .) \
    | (cd "$work/src" && tar -xf -) || fail "copy of the source tree"
cd "$work/src" || fail "cd $work/src"
if [ "$regen" = 1 ]; then
    php scripts/package-xml.php --untracked >&2 || fail "scripts/package-xml.php --untracked"
fi
version=$(php -r 'echo simplexml_load_file("package.xml")->version->release;') && [ -n "$version" ] \
    || fail "cannot read the version from package.xml"

# 2. pecl package.
log "pecl package (redlock $version)"
if ! pecl package package.xml >"$work/package.log" 2>&1; then
    sed 's/^/    /' "$work/package.log" >&2
    fail "pecl package"
fi
tgz="$work/src/redlock-$version.tgz"
[ -f "$tgz" ] || { sed 's/^/    /' "$work/package.log" >&2; fail "pecl package did not produce $tgz"; }
if grep -qi '^warning' "$work/package.log"; then
    grep -i '^warning' "$work/package.log" | sed 's/^/    /' >&2
fi
log "built $(basename "$tgz") ($(tar tzf "$tgz" | wc -l) entries)"

# 3. The private prefix: PEAR config + registry, and php-config/phpize wrappers.
prefix="$work/pear"
rc="$work/pearrc"
priv="$work/phproot"
privext="$priv/lib/php/extensions"
suffix=-redlockpkg
real_phpize=$(command -v phpize)
real_phpconfig=$(command -v php-config)
sys_ext_dir=$("$real_phpconfig" --extension-dir)
sys_had_so=0
[ -e "$sys_ext_dir/redlock.so" ] && sys_had_so=1
mkdir -p "$work/bin" "$privext" || fail "mkdir $work/bin $privext"
printf '#!/bin/sh\nexec %s "$@"\n' "$real_phpize" >"$work/bin/phpize$suffix"
{
    echo '#!/bin/sh'
    echo '# php-config with a private install prefix (tests/harness/packaging/pecl_install.sh)'
    echo 'case "$1" in'
    echo "    --prefix) echo '$priv' ;;"
    echo "    --extension-dir) echo '$privext' ;;"
    echo "    *) exec '$real_phpconfig' \"\$@\" ;;"
    echo 'esac'
} >"$work/bin/php-config$suffix"
chmod +x "$work/bin/phpize$suffix" "$work/bin/php-config$suffix" || fail "chmod wrappers"
[ "$("$work/bin/php-config$suffix" --extension-dir)" = "$privext" ] || fail "php-config wrapper"
export PATH="$work/bin:$PATH"

pear config-create "$prefix" "$rc" >/dev/null 2>&1 && [ -f "$rc" ] || fail "pear config-create"
pecl_p() { pecl -c "$rc" "$@"; }
pecl_p config-set php_suffix "$suffix" >/dev/null 2>&1 || fail "pecl config-set php_suffix"
pecl_p config-set php_bin "$(command -v php)" >/dev/null 2>&1 || fail "pecl config-set php_bin"
pecl_p config-set ext_dir "$privext" >/dev/null 2>&1 || fail "pecl config-set ext_dir"
php_dir=$(pecl_p config-get php_dir 2>/dev/null)
case "$php_dir" in
    "$work"/*) ;;
    *) fail "the PEAR registry would not be private: php_dir=$php_dir" ;;
esac

# 4. Offline install: pecl runs phpize/configure/make (hiredis via pkg-config).
log "pecl install -O (registry in $prefix, extension into $privext)"
MAKEFLAGS="${MAKEFLAGS:--j2}" pecl_p install -O -D 'with-hiredis="autodetect"' "$tgz" \
    </dev/null >"$work/install.log" 2>&1
install_rc=$?
# Safety net: the machine's extension dir must not have gained a redlock.so.
if [ "$sys_had_so" = 0 ] && [ -e "$sys_ext_dir/redlock.so" ]; then
    rm -f "$sys_ext_dir/redlock.so"
    fail "pecl installed into the system extension dir $sys_ext_dir (removed it again)"
fi
if [ "$install_rc" -ne 0 ] || ! grep -q '^install ok:' "$work/install.log"; then
    tail -n 60 "$work/install.log" | sed 's/^/    /' >&2
    fail "pecl install -O (exit $install_rc; KEEP=1 keeps $work/install.log)"
fi
so="$privext/redlock.so"
if [ ! -f "$so" ]; then
    tail -n 30 "$work/install.log" | sed 's/^/    /' >&2
    fail "pecl install did not put redlock.so into $privext"
fi
pecl_p list 2>/dev/null | grep -q "^redlock[[:space:]]\+$version" \
    || fail "redlock $version is not in the private registry after install"
ntests=$(find "$prefix" -path '*redlock*' -name '*.phpt' | wc -l)
log "installed $so ($ntests .phpt in the private test_dir)"

# 5. Load it and compare versions.
loaded=$(php -n -d "extension=$so" -r 'echo phpversion("redlock");' 2>&1) \
    || fail "php cannot load $so: $loaded"
[ "$loaded" = "$version" ] || fail "phpversion('redlock') is '$loaded', package.xml says $version"

# 6. Smoke test against real nodes.
if [ -z "${REDLOCK_TEST_NODES:-}" ]; then
    [ -f "$root/tests/nodes.sh" ] || fail "REDLOCK_TEST_NODES unset and tests/nodes.sh missing"
    nodes_started=1
    REDLOCK_NODES_DIR="$work/nodes" bash "$root/tests/nodes.sh" start 3 >&2 \
        || fail "tests/nodes.sh start 3"
    REDLOCK_TEST_NODES=$(sed -n 's/^\(export \)\{0,1\}REDLOCK_TEST_NODES=["'\'']\{0,1\}\([^"'\'']*\).*/\2/p' "$work/nodes/env")
    [ -n "$REDLOCK_TEST_NODES" ] || fail "no REDLOCK_TEST_NODES in $work/nodes/env"
fi
log "smoke test against $REDLOCK_TEST_NODES"
out=$(REDLOCK_TEST_NODES="$REDLOCK_TEST_NODES" timeout 60 \
      php -n -d "extension=$so" "$root/tests/harness/packaging/smoke.php" 2>&1)
status=$?
[ "$status" -eq 0 ] && [ "$(printf '%s\n' "$out" | tail -n1)" = "OK" ] \
    || fail "smoke.php (exit $status): $out"

echo "pecl_install: PASS (redlock $version packaged, installed into a private prefix, smoke OK)"
exit 0
