<?php
// pie_composer.php -- checks the root composer.json that makes the extension
// installable with PIE (`pie install redlock/redlock`):
//   - composer basics, and `composer validate --no-check-publish --strict` (offline);
//   - the php-ext section against PIE's own JSON schema, with the JsonSchema
//     library Debian's composer package ships (/usr/share/php/JsonSchema), and
//     three broken copies that the schema must reject (so the check can fail);
//   - agreement with config.m4 (extension name, configure options), package.xml
//     (name, configure options, minimum PHP) and the PHP the tests run on (ZTS/NTS).
// The schema comes from ../shared/reference/pie/ (not part of the repository):
// without it the schema checks report themselves skipped, with the reason.
//
// Usage: php tests/harness/packaging/pie_composer.php   (REDLOCK_SHARED_DIR: shared/ if not at ../shared)
// Output: one line per check ("ok", "FAIL" or "skip"), then
//   "pie_composer: N passed, N failed, N skipped"; exit 1 when something failed.

$root = dirname(__DIR__, 3);
$shared = getenv('REDLOCK_SHARED_DIR') ?: "$root/../shared";      // a checkout's ../shared by default
$schemaFile = "$shared/reference/pie/composer-json-php-ext-schema.json";
$jsonSchemaAutoload = '/usr/share/php/JsonSchema/autoload.php';   // Debian: php-json-schema (composer)

$passed = $failed = $skipped = 0;
function result(string $status, string $name, string $detail = ''): void
{
    global $passed, $failed, $skipped;
    match ($status) { 'ok' => $passed++, 'FAIL' => $failed++, 'skip' => $skipped++ };
    echo str_pad($status, 5), $name, $detail === '' ? '' : ": $detail", "\n";
}
function check(string $name, array $problems, string $okDetail = ''): void
{
    if ($problems) {
        result('FAIL', $name, implode('; ', $problems));
    } else {
        result('ok', $name, $okDetail);
    }
}

// ---- composer.json itself -------------------------------------------------
$raw = @file_get_contents("$root/composer.json");
$c = $raw === false ? null : json_decode($raw);
if (!$c instanceof stdClass) {
    result('FAIL', 'composer.json', $raw === false ? 'missing' : 'not a JSON object: ' . json_last_error_msg());
    echo "pie_composer: $passed passed, $failed failed, $skipped skipped\n";
    exit(1);
}
$ext = $c->{'php-ext'} ?? null;

$p = [];
if (($c->type ?? null) !== 'php-ext') {
    $p[] = 'type must be "php-ext" (a PHP module, loaded with extension=)';
}
if (($c->name ?? null) !== 'redlock/redlock') {
    $p[] = 'name must be "redlock/redlock"';
}
foreach (['description', 'license'] as $k) {
    if (!is_string($c->$k ?? null) || $c->$k === '') {
        $p[] = "$k missing";
    }
}
if (($c->license ?? null) !== 'MIT' || !str_starts_with((string) @file_get_contents("$root/LICENSE"), 'MIT License')) {
    $p[] = 'license must be "MIT", as LICENSE says';
}
if (!is_string($c->require->php ?? null)) {
    $p[] = 'require.php missing (PIE uses it to pick a release for the target PHP)';
}
foreach ((array) ($c->require ?? []) as $dep => $_) {
    if ($dep !== 'php' && !str_starts_with($dep, 'ext-')) {
        $p[] = "require.$dep: an extension must not require PHP packages";
    }
}
if (!$ext instanceof stdClass) {
    $p[] = 'no php-ext object';
}
check('composer.json basics (type, name, license, description, require)', $p);
if (!$ext instanceof stdClass) {
    $ext = new stdClass();
}

// ---- composer validate (offline, private COMPOSER_HOME) -------------------
$composer = trim((string) shell_exec('command -v composer 2>/dev/null'));
if ($composer === '') {
    result('FAIL', 'composer validate', 'composer not found (scripts/deps.sh installs Debian\'s composer)');
} else {
    $home = sys_get_temp_dir() . '/redlock-composer-' . getmypid();
    @mkdir($home, 0700, true);
    $cmd = 'cd ' . escapeshellarg($root) . ' && COMPOSER_HOME=' . escapeshellarg($home)
        . ' COMPOSER_CACHE_DIR=' . escapeshellarg("$home/cache")
        . ' COMPOSER_DISABLE_NETWORK=1 COMPOSER_NO_INTERACTION=1 COMPOSER_ALLOW_SUPERUSER=1 '
        . escapeshellarg($composer) . ' validate --no-check-publish --no-check-lock --strict --no-ansi 2>&1';
    exec($cmd, $out, $rc);
    exec('rm -rf ' . escapeshellarg($home));
    $text = implode("\n", $out);
    // Composer before 2.8 has no php-ext in its own schema and says so as a
    // publish warning (PIE's schema below is the one that checks php-ext);
    // any other warning or error fails.
    $other = array_filter($out, fn ($l) => preg_match('/^- /', $l)
        && !str_contains($l, 'The property php-ext is not defined'));
    if ($rc !== 0 || $other) {
        result('FAIL', 'composer validate --no-check-publish --strict', "exit $rc\n" . preg_replace('/^/m', '    | ', $text));
    } else {
        $v = trim((string) shell_exec(escapeshellarg($composer) . ' --version --no-ansi 2>/dev/null'));
        result('ok', 'composer validate --no-check-publish --strict',
            preg_replace('/ \d{4}-\d\d-\d\d.*$/', '', $v)
            . (str_contains($text, 'php-ext is not defined') ? ' (predates php-ext: its publish warning about it is expected)' : ''));
    }
}

// ---- PIE's schema ----------------------------------------------------------
$schema = null;
if (!is_file($schemaFile)) {
    $why = "$schemaFile is absent (PIE's schema is not part of the repository; set REDLOCK_SHARED_DIR if shared/ is elsewhere)";
    result('skip', "php-ext against PIE's schema", $why);
    result('skip', "php-ext keys known to PIE's schema", $why);
} elseif (!is_file($jsonSchemaAutoload)) {
    result('FAIL', "php-ext against PIE's schema", "$jsonSchemaAutoload missing (scripts/deps.sh installs php-json-schema)");
} else {
    require $jsonSchemaAutoload;
    $schema = json_decode((string) file_get_contents($schemaFile));
    $validate = function (stdClass $doc) use ($schema): array {
        $v = new JsonSchema\Validator();
        $v->validate($doc, $schema, JsonSchema\Constraints\Constraint::CHECK_MODE_NORMAL);
        return array_map(fn ($e) => ($e['pointer'] ?: '/') . ': ' . $e['message'], $v->getErrors());
    };
    $errors = $validate(json_decode($raw));
    // The same validator must reject broken copies, or it validates nothing.
    $broken = [
        'priority 5 (range 10-99)' => fn ($d) => $d->{'php-ext'}->priority = 5,
        'support-nts "yes" (boolean)' => fn ($d) => $d->{'php-ext'}->{'support-nts'} = 'yes',
        'configure option "--with-hiredis" (name without dashes)' =>
            fn ($d) => $d->{'php-ext'}->{'configure-options'} = [(object) ['name' => '--with-hiredis']],
        'os-families and os-families-exclude together' => function ($d) {
            $d->{'php-ext'}->{'os-families'} = ['linux'];
            $d->{'php-ext'}->{'os-families-exclude'} = ['windows'];
        },
    ];
    foreach ($broken as $what => $mutate) {
        $doc = json_decode($raw);
        if (!$doc->{'php-ext'} instanceof stdClass) {
            break;
        }
        $mutate($doc);
        if (!$validate($doc)) {
            $errors[] = "the schema check accepted a broken copy: $what";
        }
    }
    $sha = substr(sha1_file($schemaFile), 0, 12);
    check("php-ext against PIE's schema", $errors,
        "valid (schema sha1 $sha...; " . count($broken) . ' broken copies rejected)');

    // The schema allows unknown keys: a typo ("support_zts") would be ignored by PIE.
    $known = array_keys((array) $schema->properties->{'php-ext'}->properties);
    $unknown = array_diff(array_keys((array) $ext), $known);
    check("php-ext keys known to PIE's schema", $unknown ? ['unknown: ' . implode(', ', $unknown)] : []);
}

// ---- agreement with config.m4, package.xml and the tested PHP ---------------
$m4 = (string) file_get_contents("$root/config.m4");
$xml = @simplexml_load_file("$root/package.xml");
$p = [];
$name = $ext->{'extension-name'} ?? null;
if (!is_string($name) || !preg_match('#^[A-Za-z][a-zA-Z0-9_]+$#', $name)) {   // PIE's ExtensionName rule
    $p[] = 'extension-name missing or not a valid extension name';
}
if (!preg_match('/PHP_NEW_EXTENSION\(\[?(\w+)/', $m4, $m) || $m[1] !== $name) {
    $p[] = 'extension-name "' . $name . '" is not config.m4\'s PHP_NEW_EXTENSION (' . ($m[1] ?? '?') . ')';
}
if ($xml === false || (string) $xml->name !== $name) {
    $p[] = 'extension-name is not package.xml\'s <name>';
}
if (!is_int($ext->priority ?? null)) {
    $p[] = 'no priority (the ini file\'s sort prefix)';
}
check('extension-name and priority (config.m4, package.xml)', $p, "$name, priority " . ($ext->priority ?? '?'));

$p = [];
// What ./configure accepts, from config.m4's PHP_ARG_WITH/PHP_ARG_ENABLE.
preg_match_all('/PHP_ARG_(WITH|ENABLE)\(\[?([\w-]+)/', $m4, $mm, PREG_SET_ORDER);
$accepted = [];
foreach ($mm as [, $kind, $opt]) {
    $opt = str_replace('_', '-', $opt);
    if ($kind === 'WITH') {
        $accepted["with-$opt"] = true;
        $accepted["without-$opt"] = false;
    } else {
        $accepted["enable-$opt"] = false;
        $accepted["disable-$opt"] = false;
    }
}
$opts = [];
foreach ((array) ($ext->{'configure-options'} ?? []) as $o) {
    $n = $o->name ?? '';
    $opts[$n] = true;
    if (!array_key_exists($n, $accepted)) {
        $p[] = "configure option $n is not declared in config.m4";
    } elseif ($accepted[$n] && ($o->{'needs-value'} ?? false) !== true) {
        $p[] = "configure option $n takes a DIR: needs-value must be true, or PIE cannot pass one";
    }
    if (!is_string($o->description ?? null) || $o->description === '') {
        $p[] = "configure option $n has no description";
    }
}
$pecl = [];
if ($xml !== false) {
    $xml->registerXPathNamespace('p', 'http://pear.php.net/dtd/package-2.0');
    foreach ($xml->xpath('//p:configureoption') as $co) {
        $pecl[] = (string) $co['name'];
    }
}
foreach ($pecl as $n) {
    if (!isset($opts[$n])) {
        $p[] = "package.xml offers configure option $n to pecl but composer.json does not offer it to PIE";
    }
}
check('configure-options (config.m4, package.xml)', $p, implode(', ', array_map(fn ($n) => "--$n", array_keys($opts))));

$p = [];
$min = $xml === false ? '' : (string) $xml->dependencies->required->php->min;
if (!preg_match('/^>=\s*(\d+\.\d+)(\.\d+)?$/', (string) ($c->require->php ?? ''), $m)) {
    $p[] = 'require.php should be ">=X.Y" (as package.xml\'s <min>)';
} elseif (!str_starts_with($min, $m[1] . '.')) {
    $p[] = "require.php {$c->require->php} disagrees with package.xml's php min $min";
} elseif (version_compare(PHP_VERSION, $m[1], '<')) {
    $p[] = 'the PHP running the tests (' . PHP_VERSION . ") is below require.php {$c->require->php}";
}
// A thread-safety mode is claimed only when the tests run on it.
$mode = PHP_ZTS ? 'zts' : 'nts';
if (($ext->{"support-$mode"} ?? true) !== true) {
    $p[] = "the tests run on an " . strtoupper($mode) . " PHP but support-$mode is not true";
}
// the other mode is tested by the platform matrix: ZTS by its ZTS debug PHP (tests/harness/platforms/run.sh)
if (!PHP_ZTS && ($ext->{'support-zts'} ?? true) === true
    && !preg_match('/^ZTS_CONFIGURE="[^"]*--enable-zts/m', (string) @file_get_contents(__DIR__ . '/../platforms/run.sh'))) {
    $p[] = 'support-zts is true but no ZTS PHP runs the tests (tests/harness/platforms/run.sh builds one)';
}
foreach (['zts', 'nts'] as $k) {
    if (!is_bool($ext->{"support-$k"} ?? null)) {
        $p[] = "support-$k not set (PIE assumes true when absent)";
    }
}
check('require.php and thread safety vs the tested PHP', $p,
    'php ' . ($c->require->php ?? '?') . ', tested on PHP ' . PHP_VERSION . ' ' . strtoupper($mode)
    . ', support-nts ' . var_export($ext->{'support-nts'} ?? null, true)
    . ', support-zts ' . var_export($ext->{'support-zts'} ?? null, true));

echo "pie_composer: $passed passed, $failed failed, $skipped skipped\n";
exit($failed > 0 ? 1 : 0);
