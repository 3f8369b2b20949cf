<?php
// package-xml.php -- rewrite the <contents> of package.xml from `git ls-files`.
//
// Usage (from anywhere inside the repository):
//   php scripts/package-xml.php              rewrite package.xml's <contents>
//   php scripts/package-xml.php --list       print "role<TAB>path" of what should ship
//   add --untracked to either to also take files git does not track yet but
//   does not ignore (`git ls-files --others --exclude-standard`).
// Only the <contents> element is replaced; the rest of package.xml is kept
// byte for byte. New files must be `git add`ed first (or use --untracked).
// scripts/checkrel.sh uses --list, so the two never disagree on what ships.

// Paths that never ship: a trailing "/" excludes a directory, a leading "*"
// matches a file-name suffix anywhere, anything else is an exact path.
const EXCLUDE = [
    '.ci/',
    '.github/',
    'bench/',
    'scripts/',               // dev and CI helpers, not needed to build
    'tests/harness/fpm/',     // php-fpm + PHPUnit harness (needs composer, php-fpm)
    'tests/harness/torture/',  // multi-process torture run with a fault injector (dev only)
    'tests/harness/packaging/',  // this packaging round trip itself
    'tests/harness/hiredis1/',  // builds against hiredis 1.x from ../shared (dev and CI only)
    'integrations/',          // the Symfony and Laravel adapters: Composer packages, installed with Composer
    'tests/harness/integrations/',  // their PHPUnit runs (Composer installs from Packagist)
    'redlock_core/tests/',    // C unit tests of the core (make -C redlock_core test)
    'tests/metrics/table_test.c',  // C test of the metrics table (uses redlock_core/tests/check.h)
    'tests/metrics/table_test.sh',
    'redlock_core/fuzz/',
    'redlock_core/model/',    // model check of the fencing protocol (make -C redlock_core model)
    'redlock_core/Makefile',  // standalone core build; phpize builds from config.m4
    'redlock_core/cli/',      // redlock(1): built by make -C redlock_core cli, not by the PECL/PIE package
    'tests/harness/cli/',     // drives redlock(1) (needs the binary built from redlock_core/)
    '.gitignore',
    '.gitattributes',
    '.editorconfig',
    '.clang-format',
    'redlock_core/.clang-format',
    'HACKING.md',
    'package.xml',            // pecl package adds it to the tarball by itself
    'composer.json',
    'phpunit.xml',
    'phpunit.xml.dist',
    '.phpunit.result.cache',  // PHPUnit run artefact (belongs in .gitignore)
];

// First match wins: [regex on the path, role].
const ROLES = [
    ['~^tests/~', 'test'],
    ['~^(stubs|examples|docs)/~', 'doc'],
    ['~^(README|CHANGELOG|LICENSE|COPYING|NEWS|CREDITS)[^/]*$~', 'doc'],
    ['~\.(c|h|m4|w32|frag|lua)$~', 'src'],
    ['~\.stub\.php$~', 'src'],
    ['~^[^/]+\.md$~', 'doc'],
];

function excluded(string $path): bool
{
    foreach (EXCLUDE as $e) {
        if (str_ends_with($e, '/') ? str_starts_with($path, $e)
            : (str_starts_with($e, '*') ? str_ends_with($path, substr($e, 1)) : $path === $e)) {
            return true;
        }
    }
    return false;
}

function role_of(string $path): ?string
{
    foreach (ROLES as [$re, $role]) {
        if (preg_match($re, $path)) {
            return $role;
        }
    }
    return null;
}

function git_files(string $root, bool $untracked): array
{
    $cmd = 'git -C ' . escapeshellarg($root) . ' ls-files -z --cached'
        . ($untracked ? ' --others --exclude-standard' : '');
    exec($cmd, $out, $rc);
    if ($rc !== 0) {
        fwrite(STDERR, "package-xml: `git ls-files` failed in $root\n");
        exit(2);
    }
    $files = array_values(array_unique(array_filter(explode("\0", implode("\n", $out)), 'strlen')));
    sort($files, SORT_STRING);
    return $files;
}

/** @return array<string, string> path => role of every file that ships */
function shipped(string $root, bool $untracked): array
{
    $ship = [];
    $noRole = [];
    foreach (git_files($root, $untracked) as $f) {
        if (excluded($f)) {
            continue;
        }
        if (!is_file("$root/$f")) {
            fwrite(STDERR, "package-xml: warning: $f is in the git index but not on disk; skipped\n");
            continue;
        }
        $role = role_of($f);
        if ($role === null) {
            $noRole[] = $f;
            continue;
        }
        $ship[$f] = $role;
    }
    if ($noRole) {
        fwrite(STDERR, "package-xml: no role for these files; add them to EXCLUDE or ROLES in scripts/package-xml.php:\n  "
            . implode("\n  ", $noRole) . "\n");
        exit(1);
    }
    return $ship;
}

$args = array_slice($argv, 1);
$untracked = in_array('--untracked', $args, true);
$list = in_array('--list', $args, true);
foreach ($args as $a) {
    if (!in_array($a, ['--untracked', '--list'], true)) {
        fwrite(STDERR, "usage: php scripts/package-xml.php [--list] [--untracked]\n");
        exit(2);
    }
}

$root = dirname(__DIR__);
$ship = shipped($root, $untracked);

if ($list) {
    foreach ($ship as $f => $role) {
        echo "$role\t$f\n";
    }
    exit(0);
}

$xmlFile = "$root/package.xml";
$xml = @file_get_contents($xmlFile);
if ($xml === false) {
    fwrite(STDERR, "package-xml: $xmlFile not found\n");
    exit(2);
}
$lines = " <contents>\n  <dir name=\"/\">\n";
foreach ($ship as $f => $role) {
    $lines .= '   <file name="' . htmlspecialchars($f, ENT_XML1 | ENT_QUOTES) . "\" role=\"$role\" />\n";
}
$lines .= "  </dir>\n </contents>";
$new = preg_replace('~[ \t]*<contents>.*?</contents>~s', $lines, $xml, 1, $n);
if ($n !== 1) {
    fwrite(STDERR, "package-xml: no <contents>...</contents> in $xmlFile\n");
    exit(2);
}
if ($new !== $xml) {
    file_put_contents($xmlFile, $new);
    fwrite(STDERR, "package-xml: wrote " . count($ship) . " files into $xmlFile\n");
} else {
    fwrite(STDERR, "package-xml: $xmlFile already up to date (" . count($ship) . " files)\n");
}
