--TEST--
stubs/redlock.php matches the loaded extension (classes, methods, parameters, defaults, types, properties, flags)
--EXTENSIONS--
redlock
--SKIPIF--
<?php
if (!is_file(__DIR__ . '/../../stubs/redlock.php')) die('skip stubs/redlock.php not shipped next to the tests');
if (!function_exists('proc_open')) die('skip proc_open() disabled');
?>
--FILE--
<?php
/* The stub is parsed in a subprocess started with -n (no php.ini, so no
 * redlock extension): declaring its classes here would collide with the
 * extension's. Both sides are dumped by the same code, then compared. */
$dumper = <<<'PHP'
<?php
function rl_type(?ReflectionType $t): ?string {
    return $t === null ? null : (string) $t;
}
function rl_dump_class(string $name): array {
    $c = new ReflectionClass($name);
    $out = [
        'name' => $c->getName(),
        'parent' => $c->getParentClass() ? $c->getParentClass()->getName() : null,
        'interfaces' => (function (array $i) { sort($i); return $i; })($c->getInterfaceNames()),
        'final' => $c->isFinal(),
        'abstract' => $c->isAbstract(),
        'interface' => $c->isInterface(),
        'trait' => $c->isTrait(),
        'enum' => $c->isEnum(),
        'readonly_class' => method_exists($c, 'isReadOnly') ? $c->isReadOnly() : false,
        'instantiable' => $c->isInstantiable(),
        'modifiers' => $c->getModifiers(),
        'constants' => [],
        'methods' => [],
        'properties' => [],
    ];
    foreach ($c->getReflectionConstants() as $k) {
        if ($k->getDeclaringClass()->getName() !== $c->getName()) continue;
        $out['constants'][$k->getName()] = ['value' => $k->getValue(), 'modifiers' => $k->getModifiers()];
    }
    foreach ($c->getMethods() as $m) {
        if ($m->getDeclaringClass()->getName() !== $c->getName()) continue;
        $params = [];
        foreach ($m->getParameters() as $p) {
            $d = ['position' => $p->getPosition(), 'type' => rl_type($p->getType()),
                  'allows_null' => $p->allowsNull(), 'optional' => $p->isOptional(),
                  'variadic' => $p->isVariadic(), 'by_ref' => $p->isPassedByReference(),
                  'has_default' => $p->isDefaultValueAvailable()];
            if ($p->isDefaultValueAvailable()) {
                $d['default'] = var_export($p->getDefaultValue(), true);
                $d['default_const'] = $p->isDefaultValueConstant() ? $p->getDefaultValueConstantName() : null;
            }
            $params[$p->getName()] = $d;
        }
        $out['methods'][$m->getName()] = [
            'modifiers' => implode(' ', Reflection::getModifierNames($m->getModifiers())),
            'static' => $m->isStatic(), 'abstract' => $m->isAbstract(), 'final' => $m->isFinal(),
            'by_ref_return' => $m->returnsReference(),
            'return' => rl_type($m->getReturnType()),
            'tentative_return' => $m->hasTentativeReturnType() ? rl_type($m->getTentativeReturnType()) : null,
            'required' => $m->getNumberOfRequiredParameters(),
            'params' => $params,
        ];
    }
    foreach ($c->getProperties() as $p) {
        if ($p->getDeclaringClass()->getName() !== $c->getName()) continue;
        $out['properties'][$p->getName()] = [
            'modifiers' => implode(' ', Reflection::getModifierNames($p->getModifiers())),
            'type' => rl_type($p->getType()),
            'readonly' => $p->isReadOnly(), 'static' => $p->isStatic(),
            'has_default' => $p->hasDefaultValue(),
            'default' => $p->hasDefaultValue() ? var_export($p->getDefaultValue(), true) : null,
        ];
    }
    ksort($out['methods']);
    ksort($out['properties']);
    ksort($out['constants']);
    return $out;
}
function rl_dump(array $classes, array $functions): array {
    sort($classes);
    sort($functions);
    $out = ['classes' => [], 'functions' => $functions];
    foreach ($classes as $cl) $out['classes'][$cl] = rl_dump_class($cl);
    return $out;
}
if (PHP_SAPI === 'cli' && isset($argv[1]) && realpath($argv[0]) === realpath(__FILE__)) {
    $all = fn () => array_merge(get_declared_classes(), get_declared_interfaces(), get_declared_traits());
    $before_c = $all();
    $before_f = get_defined_functions()['user'];
    require $argv[1];
    $classes = array_values(array_diff($all(), $before_c));
    $functions = array_values(array_diff(get_defined_functions()['user'], $before_f));
    echo json_encode(rl_dump($classes, $functions), JSON_PRETTY_PRINT | JSON_THROW_ON_ERROR);
}
PHP;

$tmp = tempnam(sys_get_temp_dir(), 'rl_refl_');
file_put_contents($tmp, $dumper);
require $tmp;

$stub = realpath(__DIR__ . '/../../stubs/redlock.php');
$cmd = [PHP_BINARY, '-n', '-d', 'display_errors=stderr', $tmp, $stub];
$proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
$json = stream_get_contents($pipes[1]);
$err = stream_get_contents($pipes[2]);
$rc = proc_close($proc);
unlink($tmp);
if ($rc !== 0) {
    echo "stub subprocess failed (rc $rc): $err\n";
    exit;
}
$fromStub = json_decode($json, true, 512, JSON_THROW_ON_ERROR);

$ext = new ReflectionExtension('redlock');
$fromExt = json_decode(json_encode(rl_dump(
    $ext->getClassNames(),
    array_keys($ext->getFunctions())
), JSON_THROW_ON_ERROR), true);

/* Each difference as one line: path: ext=... stub=... */
function rl_diff($a, $b, string $path, array &$out): void {
    if (is_array($a) && is_array($b)) {
        foreach (array_unique(array_merge(array_keys($a), array_keys($b))) as $k) {
            $p = $path === '' ? (string) $k : "$path.$k";
            if (!array_key_exists($k, $a)) { $out[] = "$p: only in stub"; continue; }
            if (!array_key_exists($k, $b)) { $out[] = "$p: only in extension"; continue; }
            rl_diff($a[$k], $b[$k], $p, $out);
        }
        return;
    }
    if ($a !== $b) {
        $out[] = "$path: ext=" . json_encode($a) . " stub=" . json_encode($b);
    }
}
$diffs = [];
rl_diff($fromExt, $fromStub, '', $diffs);
if (count($fromExt['classes']) < 6) {
    $diffs[] = 'extension registers only ' . count($fromExt['classes']) . ' classes';
}
echo $diffs ? implode("\n", $diffs) . "\n" : "OK\n";
?>
--EXPECT--
OK
