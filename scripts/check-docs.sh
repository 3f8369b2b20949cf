#!/usr/bin/env bash
# check-docs.sh -- the documentation says what the code does, and its references lead somewhere.
# Fails (exit 1), naming each miss, when
#   (a) a class, public method or property of redlock.stub.php,
#   (b) an option key the extension parses (REDLOCK_OPTIONS, REDLOCK_TLS_SETTINGS and
#       REDLOCK_NODE_KEYS in the glue's headers, and the keys its .c files look up by name:
#       "shared", "weight", restore()'s "mode", "limit", "resources"),
#   (c) an INI entry (made from REDLOCK_OPTIONS in redlock.c, or a literal "redlock.*" entry there)
#   is missing from docs/api.md or from stubs/redlock.php;
#   (d) a citation of a docs page with a section in double quotes (docs/NAME.md then "Section",
#       anywhere in the tracked files) names a page that does not exist or a section that is not a
#       heading of it (a heading matches when it is the section, or begins with it followed by a
#       space, a colon or a parenthesis; backticks ignored); a docs/NAME.md without a section must
#       exist;
#   (e) a tracked file names the old out-of-tree contract files (the upper-case API and CLI .md);
#   (f) a relative link in a tracked .md file (README.md, HACKING.md, CHANGELOG.md, docs/, ...)
#       leads to no file, or to an anchor that is no heading there (GitHub's anchors).
# Needs php (CLI) and git. Ends with "check-docs: N passed, N failed, 0 skipped".
# Usage: bash scripts/check-docs.sh [-v]   (-v: print every check, not only the misses)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
exec php -n -d error_reporting=-1 -d display_errors=stderr -- "$@" <<'PHP'
<?php
$verbose = in_array('-v', $argv, true);
$pass = 0;
$fail = 0;
function check(bool $ok, string $what): void
{
    global $pass, $fail, $verbose;
    if ($ok) {
        $pass++;
        if ($verbose) echo "ok   $what\n";
    } else {
        $fail++;
        echo "FAIL $what\n";
    }
}
function read(string $f): string
{
    $t = @file_get_contents($f);
    return $t === false ? '' : $t;
}
$files = array_filter(explode("\0", (string) shell_exec('git ls-files -z --cached --others --exclude-standard')));
$files = array_values(array_filter($files, 'is_file'));
$api = read('docs/api.md');
$stub = read('stubs/redlock.php');
check($api !== '', 'docs/api.md exists');
check($stub !== '', 'stubs/redlock.php exists');

/* (a) classes, public methods and properties of redlock.stub.php */
$src = read('redlock.stub.php');
check($src !== '', 'redlock.stub.php exists');
preg_match_all('/\b(?:class|interface)\s+(\w+)/', $src, $m);
foreach (array_unique($m[1]) as $c) {
    check(str_contains($api, $c), "(a) class $c in docs/api.md");
    check((bool) preg_match('/\bclass\s+' . $c . '\b/', $stub), "(a) class $c in stubs/redlock.php");
}
preg_match_all('/\bpublic\s+(?:static\s+)?function\s+(\w+)\s*\(/', $src, $m);
foreach (array_unique($m[1]) as $fn) {
    check(str_contains($api, "$fn("), "(a) method $fn() in docs/api.md");
    check((bool) preg_match('/\bpublic\s+(?:static\s+)?function\s+' . $fn . '\s*\(/', $stub), "(a) method $fn() in stubs/redlock.php");
}
preg_match_all('/\bpublic\s+readonly\s+[?\w\\\\]+\s+\$(\w+)/', $src, $m);
foreach (array_unique($m[1]) as $p) {
    check(str_contains($api, "\$$p"), "(a) property \$$p in docs/api.md");
    check((bool) preg_match('/\$' . $p . '\b/', $stub), "(a) property \$$p in stubs/redlock.php");
}

/* (b) option keys, (c) INI entries: from the glue's sources (the top-level .c and .h) */
$glue = [];
foreach (array_merge(glob('*.h'), glob('*.c')) as $f) $glue[$f] = read($f);
$all = implode("\n", $glue);
function xlist(string $all, string $macro): array
{
    if (!preg_match('/#define\s+' . $macro . '\(X\)((?:[^\n]*\\\\\n)*[^\n]*)/', $all, $d)) return [];
    preg_match_all('/X\(\s*(\w+)\s*,\s*(\w+)\s*(?:,\s*(\w+))?/', $d[1], $m, PREG_SET_ORDER);
    return $m;
}
$options = xlist($all, 'REDLOCK_OPTIONS');
check($options !== [], '(b) REDLOCK_OPTIONS found in the glue headers');
$keys = [];
foreach ($options as $o) $keys[$o[1]] = 'option';
foreach (xlist($all, 'REDLOCK_TLS_SETTINGS') as $o) $keys[$o[1]] = 'TLS setting';
foreach (xlist($all, 'REDLOCK_NODE_KEYS') as $o) $keys[$o[1]] = 'node key';
/* keys looked up by name in an options array (not the option table's) */
preg_match_all('/zend_hash_str_(?:find|del|exists)\w*\(\s*\*?(?:options|opts|rest|o)\s*,\s*"(\w+)"/', $all, $m);
foreach ($m[1] as $k) $keys[$k] ??= 'option';
preg_match_all('/zend_string_equals_literal\(\s*(?:k|key)\s*,\s*"(\w+)"/', $all, $m);
foreach ($m[1] as $k) $keys[$k] ??= 'option';
ksort($keys);
foreach ($keys as $k => $kind) {
    check((bool) preg_match("/[`']" . preg_quote($k, '/') . "[`']/", $api), "(b) $kind '$k' in docs/api.md");
    check((bool) preg_match('/\b' . preg_quote($k, '/') . '\b/', $stub), "(b) $kind '$k' in stubs/redlock.php");
}
$ini = [];
foreach ($options as $o) {
    /* X(name, type, where, ...): PERCALL options and the tls array have no INI entry */
    if ($o[3] !== 'PERCALL' && $o[2] !== 'TLS') $ini[] = 'redlock.' . $o[1];
}
preg_match_all('/(?:PHP_INI_ENTRY|STD_PHP_INI_\w*|ZEND_INI_ENTRY)\w*\(\s*"(redlock\.\w+)"/', $glue['redlock.c'] ?? '', $m);
$ini = array_unique(array_merge($ini, $m[1]));
check(count($ini) > 1, '(c) INI entries found in redlock.c and REDLOCK_OPTIONS');
sort($ini);
foreach ($ini as $e) {
    check((bool) preg_match('/\b' . preg_quote($e, '/') . '\b/', $api), "(c) INI entry $e in docs/api.md");
    check((bool) preg_match('/\b' . preg_quote($e, '/') . '\b/', $stub), "(c) INI entry $e in stubs/redlock.php");
}

/* headings and GitHub's anchors of a markdown file */
$headcache = [];
function headings(string $f): array
{
    global $headcache;
    if (isset($headcache[$f])) return $headcache[$f];
    $h = [];
    $fence = false;
    foreach (explode("\n", read($f)) as $l) {
        if (preg_match('/^\s*(```|~~~)/', $l)) $fence = !$fence;
        if (!$fence && preg_match('/^#{1,6}\s+(.*?)\s*#*\s*$/', $l, $m)) $h[] = $m[1];
    }
    return $headcache[$f] = $h;
}
function anchors(string $f): array
{
    $seen = [];
    $out = [];
    foreach (headings($f) as $h) {
        $s = strtolower(strip_tags($h));
        $s = preg_replace('/\[([^\]]*)\]\([^)]*\)/', '$1', $s);
        $s = preg_replace('/[^\p{L}\p{N}\s_-]/u', '', $s);
        $s = str_replace(' ', '-', $s);
        $a = isset($seen[$s]) ? $s . '-' . $seen[$s] : $s;
        $seen[$s] = ($seen[$s] ?? 0) + 1;
        $out[] = $a;
    }
    return $out;
}
function has_section(string $f, string $sec): bool
{
    $sec = str_replace('`', '', $sec);
    foreach (headings($f) as $h) {
        $h = str_replace('`', '', $h);
        if ($h === $sec) return true;
        if (str_starts_with($h, $sec) && strpbrk(substr($h, strlen($sec), 1), ' :(') !== false) return true;
    }
    return false;
}

/* (d) citations docs/NAME.md "Section" in every tracked text file; (e) the old file names */
$old = '/(?<!\w)(?:A' . 'PI|C' . 'LI)\.md\b/';   /* also as ../shared/NAME: no path outside the repository */
$cite = '~\bdocs/([\w./-]+?\.md)(?:[ :]+"([^"\n]+)")?~';
foreach ($files as $f) {
    if (preg_match('/\.(png|jpg|gif|dat|gz|tgz|so|o|a)$/', $f)) continue;
    $t = read($f);
    if (str_contains($t, "\0")) continue;
    if (preg_match_all($old, $t, $m, PREG_OFFSET_CAPTURE)) {
        foreach ($m[0] as [$w, $off]) {
            $line = substr_count($t, "\n", 0, $off) + 1;
            check(false, "(e) $f:$line names $w (cite docs/api.md or docs/cli.md)");
        }
    }
    if ($f === 'scripts/check-docs.sh') continue;
    if (!preg_match_all($cite, $t, $m, PREG_SET_ORDER | PREG_OFFSET_CAPTURE)) continue;
    foreach ($m as $c) {
        $page = 'docs/' . $c[1][0];
        $line = substr_count($t, "\n", 0, $c[0][1]) + 1;
        if (!is_file($page)) {
            check(false, "(d) $f:$line cites $page, which does not exist");
            continue;
        }
        if (isset($c[2]) && $c[2][0] !== '') {
            check(has_section($page, $c[2][0]), "(d) $f:$line cites $page \"{$c[2][0]}\"" . (has_section($page, $c[2][0]) ? '' : ', which is no heading there'));
        } else {
            check(true, "(d) $f:$line cites $page");
        }
    }
}

/* (f) relative links of every tracked markdown file */
foreach ($files as $f) {
    if (!str_ends_with($f, '.md')) continue;
    $t = read($f);
    $t = preg_replace('/^\s*```.*?^\s*```/ms', '', $t);      /* not inside code blocks */
    $t = preg_replace('/`[^`\n]*`/', '', $t);                /* nor code spans */
    if (!preg_match_all('/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/', $t, $m)) continue;
    foreach ($m[1] as $target) {
        if (preg_match('~^(?:[a-z][a-z0-9+.-]*:|//)~i', $target)) continue;     /* http:, mailto: */
        [$path, $frag] = array_pad(explode('#', $target, 2), 2, null);
        $dest = $path === '' ? $f : (dirname($f) === '.' ? '' : dirname($f) . '/') . rawurldecode($path);
        $real = realpath($dest);
        $inside = $real !== false && str_starts_with($real, getcwd() . '/');
        if (!$inside) {
            check(false, "(f) $f links to $target: no such file in the repository");
            continue;
        }
        if ($frag !== null && $frag !== '' && is_file($real) && str_ends_with($real, '.md')) {
            $ok = in_array(strtolower($frag), anchors($dest), true);
            check($ok, "(f) $f links to $target" . ($ok ? '' : ': no such heading'));
        } else {
            check(true, "(f) $f links to $target");
        }
    }
}

echo "check-docs: $pass passed, $fail failed, 0 skipped\n";
exit($fail ? 1 : 0);
PHP
