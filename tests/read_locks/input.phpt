--TEST--
Read locks, bad input: 'shared' must be a bool, is per call only (constructor: \ValueError), is refused by semaphore(); restore() names its modes
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/shared.inc';
$rl = rl_new();
rl_expect('constructor', fn() => new RedLock(rl_nodes(), ['shared' => true]), ValueError::class, '"shared" is a per-call option');
rl_expect('lock int', fn() => $rl->lock('x', 100, ['shared' => 1]), TypeError::class, '"shared" must be of type bool, int given');
rl_expect('lockAll string', fn() => $rl->lockAll(['x', 'y'], 100, ['shared' => 'yes']), TypeError::class, '"shared" must be of type bool');
rl_expect('synchronized', fn() => $rl->synchronized('x', 100, fn() => 1, ['shared' => null]), TypeError::class, '"shared" must be of type bool, null given');
rl_expect('semaphore', fn() => $rl->semaphore('x', 2, 100, ['shared' => true]), ValueError::class, '"shared" cannot be used with semaphore()');
rl_expect('restore mode', fn() => $rl->restore('x', str_repeat('a', 32), ['mode' => 'read']), ValueError::class, "'exclusive', 'shared' or 'permit'");
$r = rl_name('sh_in');
echo "shared => false is exclusive: ", ($l = $rl->lock($r, 1000, ['shared' => false]))->mode, "\n";
$l->release();
echo "synchronized shared: ", $rl->synchronized($r, 1000, function ($l) use ($rl, $r) {
    $in = $rl->lock($r, 100, ['shared' => true, 'retry_count' => 0]);   // another reader joins
    $in?->release();
    return $l->mode . ' ' . var_export($in !== null, true);
}, ['shared' => true]), "\n";
echo "after: ", var_export($rl->isLocked($r), true), "\n";
?>
--EXPECT--
constructor: ValueError ok
lock int: TypeError ok
lockAll string: TypeError ok
synchronized: TypeError ok
semaphore: ValueError ok
restore mode: ValueError ok
shared => false is exclusive: exclusive
synchronized shared: shared true
after: false
