--TEST--
RedLock::metrics(): a loss that on_lost tells the holder is in redlock_lost_total (and its resource's lost) at once, not only when the request ends, and once: releaseAll() and the request's end do not count it again
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
require __DIR__ . '/metrics.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('mlost');
$prefix = strstr($res, ':', true);
$count = function () use ($prefix) {
    $m = rlm_parse(RedLock::metrics());
    return [rlm_counter($m, 'redlock_lost_total'), rlm_counter($m, 'redlock_resource_lost_total', ['resource' => $prefix])];
};
[$lost0, $res0] = $count();
$told = 0;
// no auto_extend: the validity runs out while the lock is held
$l = $rl->lock($res, 200, ['on_lost' => function ($lock) use (&$told) { $told++; }]);
$t0 = hrtime(true);
while ($told === 0 && rl_ms($t0) < rl_slack(3000)) usleep(5000);
echo "told: $told\n";
[$lost1, $res1] = $count();
echo "counted at the delivery: ", $lost1 - $lost0, ", for its resource: ", $res1 - $res0, "\n";
RedLock::releaseAll();
[$lost2, $res2] = $count();
echo "after releaseAll(): ", $lost2 - $lost0, ", for its resource: ", $res2 - $res0, "\n";
rl_del($res);
?>
--EXPECT--
told: 1
counted at the delivery: 1, for its resource: 1
after releaseAll(): 1, for its resource: 1
