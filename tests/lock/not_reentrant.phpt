--TEST--
Locks are not reentrant: a second lock() of a held resource is a conflict, even from the same object
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('not_reentrant');
$l = $rl->lock($res, 10000);
var_dump($rl->lock($res, 10000));
var_dump(rl_new(['retry_count' => 0])->lock($res, 10000));
echo "first token still on: ", rl_count_value($res, $l->token), "\n";
var_dump($l->isValid());
var_dump($l->release());
$again = $rl->lock($res, 10000);
var_dump($again instanceof RedLock\Lock, $again->token !== $l->token);
$again->release();
rl_del($res);
?>
--EXPECT--
NULL
NULL
first token still on: 5
bool(true)
bool(true)
bool(true)
bool(true)
