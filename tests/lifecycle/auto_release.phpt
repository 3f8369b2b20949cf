--TEST--
auto_release: held locks are released at request end (exit, uncaught exception, fatal error), never by destruction
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$cases = [
    'normal end' => '$l = rl_new()->lock($res, 60000);',
    'exit' => '$l = rl_new()->lock($res, 60000); exit(3);',
    'uncaught exception' => '$l = rl_new()->lock($res, 60000); throw new Exception("x");',
    'fatal error' => '$l = rl_new()->lock($res, 60000); no_such_function_rl();',
    'lock object dropped' => 'rl_new()->lock($res, 60000); gc_collect_cycles(); echo "held during script: ", rl_count_keys($res), "\n";',
    'released in shutdown function' => '$l = rl_new()->lock($res, 60000); register_shutdown_function(function () use ($l) { echo "shutdown release: ", var_export($l->release(), true), "\n"; });',
    'auto_release off (constructor)' => '$l = rl_new(["auto_release" => false])->lock($res, 60000);',
    'auto_release off (per call)' => '$l = rl_new()->lock($res, 60000, ["auto_release" => false]);',
];
foreach ($cases as $name => $code) {
    $res = rl_name('auto_release');
    [$rc, $out] = rl_php_child('$res = ' . var_export($res, true) . ";\n" . $code);
    $lines = array_filter(explode("\n", $out), fn($l) => str_starts_with($l, 'held') || str_starts_with($l, 'shutdown'));
    echo "$name: ", implode('; ', $lines), ($lines ? '; ' : ''), "keys left ", rl_count_keys($res), "\n";
    rl_del($res);
}
?>
--EXPECT--
normal end: keys left 0
exit: keys left 0
uncaught exception: keys left 0
fatal error: keys left 0
lock object dropped: held during script: 5; keys left 0
released in shutdown function: shutdown release: true; keys left 0
auto_release off (constructor): keys left 5
auto_release off (per call): keys left 5
