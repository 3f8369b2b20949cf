#!/usr/bin/env bash
# gen-stub.sh -- regenerate redlock_arginfo.h from redlock.stub.php, offline.
#
#   bash scripts/gen-stub.sh           rewrite redlock_arginfo.h from redlock.stub.php
#   bash scripts/gen-stub.sh --check   regenerate into a temporary directory and compare
#                                      with the committed redlock_arginfo.h (exit 1 if stale)
#
# The generator is php-src's build/gen_stub.php, shipped by the php-dev package. It wants
# PHP-Parser 4.x in PHP-Parser-<version>/ next to itself and downloads it when missing;
# instead, a private copy of gen_stub.php runs in a temporary directory where that folder
# points at Debian's php-parser package (/usr/share/php/PhpParser). Both packages are in
# scripts/deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
case "${1:-}" in
    --check) check=1 ;;
    "") ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

api=$(php-config --phpapi 2>/dev/null || true)
gen="/usr/lib/php/$api/build/gen_stub.php"
[ -n "$api" ] && [ -f "$gen" ] || gen=$(ls /usr/lib/php/*/build/gen_stub.php 2>/dev/null | tail -n1)
[ -n "$gen" ] && [ -f "$gen" ] || { echo "gen-stub: gen_stub.php not found (bash scripts/deps.sh installs php-dev)" >&2; exit 2; }
parser=/usr/share/php/PhpParser
[ -d "$parser" ] || { echo "gen-stub: $parser not found (bash scripts/deps.sh installs php-parser)" >&2; exit 2; }
# the PHP-Parser version gen_stub.php asks for (it only names the folder it looks in)
want=$(sed -n 's/^ *\$version = "\([0-9.]*\)";.*/\1/p' "$gen" | head -n1)
[ -n "$want" ] || { echo "gen-stub: cannot find the PHP-Parser version in $gen" >&2; exit 2; }

work=$(mktemp -d /tmp/redlock-gen-stub.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/PHP-Parser-$want/lib"
ln -s "$parser" "$work/PHP-Parser-$want/lib/PhpParser"
cp "$gen" "$work/gen_stub.php"
cp redlock.stub.php "$work/redlock.stub.php"

# -f: regenerate even when the Stub hash line already matches
php "$work/gen_stub.php" -f "$work/redlock.stub.php" >"$work/gen.log" 2>&1 || { cat "$work/gen.log" >&2; exit 1; }
[ -f "$work/redlock_arginfo.h" ] || { cat "$work/gen.log" >&2; echo "gen-stub: no redlock_arginfo.h produced" >&2; exit 1; }

if [ $check = 1 ]; then
    if cmp -s "$work/redlock_arginfo.h" redlock_arginfo.h; then
        echo "gen-stub: redlock_arginfo.h is up to date with redlock.stub.php"
        exit 0
    fi
    diff -u redlock_arginfo.h "$work/redlock_arginfo.h" | head -n 40 >&2 || true
    echo "gen-stub: redlock_arginfo.h differs from what redlock.stub.php generates (run: bash scripts/gen-stub.sh)" >&2
    exit 1
fi
cp "$work/redlock_arginfo.h" redlock_arginfo.h
echo "gen-stub: wrote redlock_arginfo.h"
