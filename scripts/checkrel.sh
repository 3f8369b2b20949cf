#!/usr/bin/env bash
# checkrel.sh -- release sanity check (after apcu's checkrel.sh): package.xml
# lists exactly the files git tracks minus scripts/package-xml.php's EXCLUDE
# list, with the right roles; package.xml validates; the version agrees with
# php_redlock.h (and redlock_core/rl.h's RL_VERSION, printed by redlock(1));
# redlock_arginfo.h matches redlock.stub.php.
#
# Usage: scripts/checkrel.sh [--untracked]   (--untracked: as for package-xml.php)
# Exit 0 and "checkrel: OK" when all is well, else 1 and one line per problem.
# Fix a file-list problem with: git add <files> && php scripts/package-xml.php
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

untracked=
case "${1:-}" in
    "") ;;
    --untracked) untracked=--untracked ;;
    *) echo "usage: $0 [--untracked]" >&2; exit 2 ;;
esac

fail=0
problem() { echo "checkrel: $*"; fail=1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What should ship ("role<TAB>path"), from git + the exclusion list.
if ! php -n scripts/package-xml.php --list $untracked >"$work/want" 2>"$work/want.err"; then
    cat "$work/want.err" >&2
    problem "scripts/package-xml.php --list failed"
    exit 1
fi
cat "$work/want.err" >&2

# What package.xml lists ("role<TAB>path"), walking nested <dir> elements.
if ! php -r '
    $x = @simplexml_load_file("package.xml");
    if ($x === false) { fwrite(STDERR, "package.xml is not well-formed XML\n"); exit(1); }
    $x->registerXPathNamespace("p", "http://pear.php.net/dtd/package-2.0");
    $walk = function ($node, $prefix) use (&$walk) {
        foreach ($node->children() as $c) {
            $name = (string) $c["name"];
            if ($c->getName() === "dir") {
                $walk($c, ($name === "/" || $name === "") ? $prefix : $prefix . trim($name, "/") . "/");
            } elseif ($c->getName() === "file") {
                echo (string) $c["role"], "\t", $prefix . ltrim($name, "/"), "\n";
            }
        }
    };
    if (!isset($x->contents)) { fwrite(STDERR, "package.xml has no <contents>\n"); exit(1); }
    $walk($x->contents, "");
' | sort >"$work/have"; then
    problem "cannot read package.xml"
    exit 1
fi
sort "$work/want" -o "$work/want"

cut -f2 "$work/want" | sort >"$work/want.names"
cut -f2 "$work/have" | sort >"$work/have.names"
git ls-files --cached $( [ -n "$untracked" ] && echo --others --exclude-standard ) | sort >"$work/git.names"

# In git (minus exclusions) but not in package.xml.
while IFS= read -r f; do
    problem "missing from package.xml: $f"
done < <(comm -23 "$work/want.names" "$work/have.names")

# In package.xml but not shippable: not tracked at all, or excluded.
while IFS= read -r f; do
    if grep -qxF -- "$f" "$work/git.names"; then
        problem "listed in package.xml but excluded by scripts/package-xml.php: $f"
    else
        problem "listed in package.xml but not tracked by git: $f"
    fi
done < <(comm -13 "$work/want.names" "$work/have.names")

# Same file, different role.
while IFS=$'\t' read -r role f; do
    want=$(awk -F'\t' -v f="$f" '$2 == f { print $1 }' "$work/want")
    [ -n "$want" ] && [ "$want" != "$role" ] && problem "role of $f is \"$role\", expected \"$want\""
done <"$work/have"

# Listed twice.
while IFS= read -r f; do
    problem "listed twice in package.xml: $f"
done < <(uniq -d "$work/have.names")

# Listed files must exist (pecl package would fail on them).
while IFS= read -r f; do
    [ -f "$f" ] || problem "listed in package.xml but missing on disk: $f"
done <"$work/have.names"

# PEAR's own validation (schema, required tags, roles).
if command -v pecl >/dev/null 2>&1; then
    if ! pecl package-validate package.xml >"$work/validate" 2>&1 \
        || grep -iE '^(Error|Warning)' "$work/validate" \
            | grep -vqE 'Release Date "[0-9-]+" is not today'; then
        # the release date is the day the release was cut, not the day CI runs
        problem "pecl package-validate package.xml:"
        sed 's/^/    /' "$work/validate"
    fi
fi

# The release version must match the extension's PHP_REDLOCK_VERSION.
xmlver=$(php -r '$x = simplexml_load_file("package.xml"); echo $x->version->release;')
if [ -f php_redlock.h ]; then
    hver=$(sed -n 's/^#[[:space:]]*define[[:space:]]\+PHP_REDLOCK_VERSION[[:space:]]\+"\([^"]*\)".*/\1/p' php_redlock.h | head -n1)
    if [ -z "$hver" ]; then
        problem "php_redlock.h has no #define PHP_REDLOCK_VERSION \"x.y.z\""
    elif [ "$hver" != "$xmlver" ]; then
        problem "version mismatch: package.xml $xmlver, php_redlock.h $hver"
    fi
fi
# redlock(1) prints the core's RL_VERSION: the same as the extension's
if [ -f redlock_core/rl.h ] && [ -n "${hver:-}" ]; then
    cver=$(sed -n 's/^#[[:space:]]*define[[:space:]]\+RL_VERSION[[:space:]]\+"\([^"]*\)".*/\1/p' redlock_core/rl.h | head -n1)
    [ "$cver" = "$hver" ] || problem "version mismatch: redlock_core/rl.h RL_VERSION ${cver:-none}, php_redlock.h $hver"
fi
if [ -f CHANGELOG.md ] && ! grep -qF -- "$xmlver" CHANGELOG.md; then
    problem "CHANGELOG.md has no entry for $xmlver"
fi

# gen_stub.php's hash: sha1 of redlock.stub.php with CRLF normalised to LF.
if [ -f redlock.stub.php ] && [ -f redlock_arginfo.h ]; then
    want_hash=$(php -n -r 'echo sha1(str_replace("\r\n", "\n", file_get_contents("redlock.stub.php")));')
    have_hash=$(sed -n 's/.*Stub hash: \([0-9a-f]*\) \*.*/\1/p' redlock_arginfo.h | head -n1)
    [ "$want_hash" = "$have_hash" ] \
        || problem "redlock_arginfo.h is stale (Stub hash ${have_hash:-none}, sha1(redlock.stub.php) $want_hash): bash scripts/gen-stub.sh"
fi

if [ "$fail" -eq 0 ]; then
    echo "checkrel: OK ($(wc -l <"$work/have.names") files in package.xml)"
fi
exit "$fail"
