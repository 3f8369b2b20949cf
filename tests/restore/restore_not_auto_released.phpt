--TEST--
Restore: a restored lock is never released at request end (normal end, exit, uncaught exception, with auto_release on); release() on it works across processes
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$res = rl_name('restore_not_auto_released');
$tok = 'job-' . bin2hex(random_bytes(16));

// process 1 takes the lock with a token of its own and leaves it to its TTL
[$rc, $out] = rl_php_child('$l = rl_new()->lock(' . var_export($res, true) . ', 60000, ["token" => ' . var_export($tok, true) . ', "auto_release" => false]); echo $l ? "acquired" : "null";');
echo "process 1: $out, nodes holding the token after it ended: ", rl_count_value($res, $tok), "\n";

$restore = '$l = rl_new(["auto_release" => true])->restore(' . var_export($res, true) . ', ' . var_export($tok, true) . ');';
$cases = [
    'normal end' => $restore,
    'extend then end' => $restore . ' echo "extend ", var_export($l->extend(60000), true), "\n";',
    'exit' => $restore . ' exit(0);',
    'uncaught exception' => $restore . ' throw new Exception("x");',
    'object dropped' => $restore . ' unset($l); gc_collect_cycles();',
];
foreach ($cases as $name => $code) {
    [$rc, $out] = rl_php_child($code);
    $lines = array_filter(explode("\n", $out), fn($l) => str_starts_with($l, 'extend'));
    echo "$name: ", implode('; ', $lines), ($lines ? '; ' : ''), "nodes holding the token: ", rl_count_value($res, $tok), "\n";
}

// a lock this process acquired is still auto-released, restored or not beside it
[$rc, $out] = rl_php_child('$rl = rl_new(); $other = $rl->lock(' . var_export($res . ':own', true) . ', 60000); ' . $restore . ' echo "isHeld ", var_export($l->isHeld(), true), "\n";');
echo "own lock and a restored one: $out; own keys left: ", rl_count_keys($res . ':own'), ", restored still held: ", rl_count_value($res, $tok), "\n";

// process 3 restores and releases it
[$rc, $out] = rl_php_child($restore . ' echo "release ", var_export($l->release(), true), ", isReleased ", var_export($l->isReleased(), true);');
echo "process 3: $out, keys left: ", rl_count_keys($res), "\n";
// a second restore of a released lock: release() false, isHeld() false
$l = rl_new()->restore($res, $tok);
echo "after release: isHeld ", var_export($l->isHeld(), true), ", release ", var_export($l->release(), true), "\n";
rl_del($res, $res . ':own');
?>
--EXPECT--
process 1: acquired, nodes holding the token after it ended: 5
normal end: nodes holding the token: 5
extend then end: extend true; nodes holding the token: 5
exit: nodes holding the token: 5
uncaught exception: nodes holding the token: 5
object dropped: nodes holding the token: 5
own lock and a restored one: isHeld true; own keys left: 0, restored still held: 5
process 3: release true, isReleased true, keys left: 0
after release: isHeld false, release false
