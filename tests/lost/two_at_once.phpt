--TEST--
on_lost: two locks lost at the same instant ('throw' and a callable): the exception, then the callable at a later point, no spin
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
// (scripts/valgrind-phpt.sh sets VALGRIND_OPTS; the ASan run checks this test's memory)
if (getenv('VALGRIND_OPTS') !== false) die('skip its delivery times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('lost-two');
$calls = 0;
$ttl = (int) rl_slack(300); // both taken before either validity ends
$a = $rl->lock($res . ':a', $ttl, ['on_lost' => 'throw']);
$b = $rl->lock($res . ':b', $ttl, ['on_lost' => function () use (&$calls) { $calls++; }]);
$t0 = hrtime(true);
try {
    while (rl_ms($t0) < 3000) {
    }
    echo "no exception\n";
} catch (RedLock\LockLostException $e) {
    echo "caught\n";
}
$t1 = hrtime(true);
while ($calls === 0 && rl_ms($t1) < 1000) {
}
echo "callable calls: $calls\n";
echo "done within 2 s: ", var_export(rl_ms($t0) < $ttl + rl_slack(1700), true), "\n";
rl_del($res . ':a', $res . ':b');
?>
--EXPECT--
caught
callable calls: 1
done within 2 s: true
