--TEST--
prefix: the Redis key is exactly prefix . resource; Lock::$resource is the resource without prefix
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$prefix = rl_name('prefix') . ':';
$rl = rl_new(['prefix' => $prefix, 'retry_count' => 0]);
$plain = rl_new(['retry_count' => 0]);
$res = 'res' . bin2hex(random_bytes(4));
$l = $rl->lock($res, 5000);
var_dump($l->resource === $res);
echo "prefixed key ours on: ", rl_count_value($prefix . $res, $l->token), "\n";
echo "bare key on: ", rl_count_keys($res), "\n";
var_dump($rl->isLocked($res), $plain->isLocked($prefix . $res), $plain->isLocked($res));
// an object without the prefix locks the bare name independently
$b = $plain->lock($res, 5000);
var_dump($b instanceof RedLock\Lock);
$b->release();
// and cannot take the prefixed one
var_dump($plain->lock($prefix . $res, 5000));
var_dump($l->release());
echo "keys: ", rl_count_keys($prefix . $res), "\n";

// binary resource bytes go through unchanged
$bin = "b\xff\xfe \r\n\t\x01€";
$l = $rl->lock($bin, 5000);
var_dump($l->resource === $bin);
echo "binary key ours on: ", rl_count_value($prefix . $bin, $l->token), "\n";
$l->release();

// the prefix is constructor-only
try {
    $plain->lock($res, 5000, ['prefix' => 'x:']);
} catch (ValueError $e) {
    echo "per-call prefix: ValueError\n";
}
rl_del($prefix . $res, $prefix . $bin, 'x:' . $res, $res);
?>
--EXPECT--
bool(true)
prefixed key ours on: 5
bare key on: 0
bool(true)
bool(true)
bool(false)
bool(true)
NULL
bool(true)
keys: 0
bool(true)
binary key ours on: 5
per-call prefix: ValueError
