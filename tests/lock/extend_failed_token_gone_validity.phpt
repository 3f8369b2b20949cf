--TEST--
extend() that finds the token gone on a quorum, or whose new validity comes out <= 0, leaves isValid() false and remaining() 0
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);

// the key deleted on every node: every node answers "not our token"
$res = rl_name('extend_gone');
$l = $rl->lock($res, 60000);
echo "before: valid ", var_export($l->isValid(), true), ", remaining > 50000: ", var_export($l->remaining() > 50000, true), "\n";
rl_del($res);
var_dump($l->extend(30000));
echo "after: isValid ", var_export($l->isValid(), true), ", remaining ", $l->remaining(), ", ttl ", $l->ttl, "\n";
echo "key recreated: ", rl_count_keys($res), "\n";

// gone on 3 of 5 only (the 2 others still hold our token): no quorum holds it
$res2 = rl_name('extend_gone_3');
$l = $rl->lock($res2, 60000);
foreach ([1, 3, 5] as $i) {
    rl_redis(rl_nodes()[$i - 1])->del($res2);
}
var_dump($l->extend(30000));
echo "after: isValid ", var_export($l->isValid(), true), ", remaining ", $l->remaining(), "\n";

// throw_on_lost: the exception, and the validity is gone as well
$res3 = rl_name('extend_gone_throw');
$l = $rl->lock($res3, 60000, ['throw_on_lost' => true]);
rl_del($res3);
try {
    $l->extend(30000);
    echo "no exception\n";
} catch (RedLock\LockLostException $e) {
    echo "LockLostException, remaining ", $l->remaining(), "\n";
}

// extend(1): a quorum confirms, but 1 ms - drift (2 ms) leaves no validity;
// the nodes now expire the key within 1 ms, so the old 60 s are gone too
$res4 = rl_name('extend_to_1ms');
$l = $rl->lock($res4, 60000);
var_dump($l->extend(1));
echo "after: isValid ", var_export($l->isValid(), true), ", remaining ", $l->remaining(), "\n";
rl_del($res, $res2, $res3, $res4);
?>
--EXPECT--
before: valid true, remaining > 50000: true
bool(false)
after: isValid false, remaining 0, ttl 60000
key recreated: 0
bool(false)
after: isValid false, remaining 0
LockLostException, remaining 0
bool(false)
after: isValid false, remaining 0
