--TEST--
on_lost callable: called exactly once, with the same Lock object, and the code goes on; also over auto_extend's max_hold (at the validity's end)
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
$res = rl_name('lost-callable');
$calls = [];
$cb = function (RedLock\Lock $lock) use (&$calls) {
    $calls[] = [$lock, $lock->isValid(), hrtime(true)];
};
$t0 = hrtime(true);
$l = $rl->lock($res, 300, ['on_lost' => $cb]);
$m = $rl->lock($res . ':m', 300, ['on_lost' => $cb, 'auto_extend' => true, 'max_hold' => 600]);
$i = 0;
while (rl_ms($t0) < 1500) {
    $i++; // the code goes on after each call
}
echo "calls: ", count($calls), "\n";
$objs = array_map(fn($c) => $c[0], $calls);
echo "same Lock objects: ", var_export(in_array($l, $objs, true) && in_array($m, $objs, true), true), "\n";
echo "validity over at each call: ", var_export(!$calls[0][1] && !$calls[1][1], true), "\n";
$mAt = ($calls[array_search($m, $objs, true)][2] - $t0) / 1e6;
echo "max_hold lock told after max_hold and its last validity: ", var_export($mAt >= 600 && $mAt < rl_slack(600 + 300 + 200), true), "\n";
echo "loop went on: ", var_export($i > 0, true), "\n";
rl_del($res, $res . ':m');
?>
--EXPECT--
calls: 2
same Lock objects: true
validity over at each call: true
max_hold lock told after max_hold and its last validity: true
loop went on: true
