--TEST--
release() twice: true then false, no exception by default; a stale lock never deletes a new owner's key
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('release_twice');
$l = $rl->lock($res, 10000);
var_dump($l->release());
var_dump($l->release());
var_dump($l->isReleased(), $l->isValid());
echo "keys: ", rl_count_keys($res), "\n";

$other = $rl->lock($res, 10000);
var_dump($other instanceof RedLock\Lock);
var_dump($l->release());
var_dump($l->extend(5000));
echo "new owner's token on: ", rl_count_value($res, $other->token), "\n";
var_dump($other->release());
echo "keys: ", rl_count_keys($res), "\n";
rl_del($res);
?>
--EXPECT--
bool(true)
bool(false)
bool(true)
bool(false)
keys: 0
bool(true)
bool(false)
bool(false)
new owner's token on: 5
bool(true)
keys: 0
