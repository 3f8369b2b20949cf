--TEST--
on_lost: nothing after release(), nothing for an explicit extend() that finds the lock gone (its own result), nothing for a lock without on_lost
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('lost-release');
$calls = 0;
$cb = function () use (&$calls) { $calls++; };
$ttl = (int) rl_slack(300); // the four lock() calls must come before any validity ends
$a = $rl->lock($res . ':a', $ttl, ['on_lost' => 'throw']);
$b = $rl->lock($res . ':b', $ttl, ['on_lost' => $cb, 'auto_extend' => true]);
$c = $rl->lock($res . ':c', $ttl); // no on_lost
$d = $rl->lock($res . ':d', $ttl, ['on_lost' => $cb]);
var_dump($a->release(), $b->release());
// d: taken over on the nodes by someone else, then our extend() finds it gone
rl_del($res . ':d');
$e = $rl->lock($res . ':d', 5000);
var_dump($d->extend($ttl));
$t0 = hrtime(true);
try {
    while (rl_ms($t0) < $ttl + 400) {
    }
    echo "nothing thrown\n";
} catch (Throwable $ex) {
    echo get_class($ex), ": ", $ex->getMessage(), "\n";
}
echo "callable calls: $calls\n";
$e->release();
rl_del($res . ':a', $res . ':b', $res . ':c', $res . ':d');
?>
--EXPECT--
bool(true)
bool(true)
bool(false)
nothing thrown
callable calls: 0
