--TEST--
Bad lock()/synchronized()/isLocked()/extend() arguments: $resource 1..512 bytes without NUL, $ttl 1..2^31-1, callable $fn
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('bad_input_lock_args');
$fn = fn() => 1;

rl_expect('lock empty resource', fn() => $rl->lock('', 1000), 'ValueError', '$resource');
rl_expect('lock NUL resource', fn() => $rl->lock("a\0b", 1000), 'ValueError', '$resource');
rl_expect('lock 513-byte resource', fn() => $rl->lock(str_repeat('x', 513), 1000), 'ValueError', '$resource');
rl_expect('lock ttl 0', fn() => $rl->lock($res, 0), 'ValueError', '$ttl');
rl_expect('lock ttl -1', fn() => $rl->lock($res, -1), 'ValueError', '$ttl');
rl_expect('lock ttl 2^31', fn() => $rl->lock($res, 2 ** 31), 'ValueError', '$ttl');
rl_expect('lock ttl PHP_INT_MAX', fn() => $rl->lock($res, PHP_INT_MAX), 'ValueError', '$ttl');
rl_expect('lock ttl string', fn() => $rl->lock($res, 'soon'), 'TypeError', '$ttl');
rl_expect('lock options not array', fn() => $rl->lock($res, 1000, 'x'), 'TypeError', '$options');
rl_expect('sync empty resource', fn() => $rl->synchronized('', 1000, $fn), 'ValueError', '$resource');
rl_expect('sync NUL resource', fn() => $rl->synchronized("\0", 1000, $fn), 'ValueError', '$resource');
rl_expect('sync ttl 0', fn() => $rl->synchronized($res, 0, $fn), 'ValueError', '$ttl');
rl_expect('sync not callable string', fn() => $rl->synchronized($res, 1000, 'no_such_function_rl'), 'TypeError', '$fn');
rl_expect('sync not callable int', fn() => $rl->synchronized($res, 1000, 42), 'TypeError', '$fn');
rl_expect('sync not callable array', fn() => $rl->synchronized($res, 1000, [new stdClass, 'nope']), 'TypeError', '$fn');
rl_expect('isLocked empty', fn() => $rl->isLocked(''), 'ValueError', '$resource');
rl_expect('isLocked NUL', fn() => $rl->isLocked("x\0"), 'ValueError', '$resource');
rl_expect('isLocked 513 bytes', fn() => $rl->isLocked(str_repeat('y', 513)), 'ValueError', '$resource');
echo "keys created: ", rl_count_keys($res), "\n";

$l = $rl->lock($res, 5000);
rl_expect('extend 0', fn() => $l->extend(0), 'ValueError', '$ttl');
rl_expect('extend -5', fn() => $l->extend(-5), 'ValueError', '$ttl');
rl_expect('extend 2^31', fn() => $l->extend(2 ** 31), 'ValueError', '$ttl');
echo "still ours after bad extends: ", rl_count_value($res, $l->token), ", ttl ", $l->ttl, "\n";
$l->release();

// the edges themselves are accepted
$max = str_repeat('m', 511) . "\xff";
$l = $rl->lock($max, 1000);
echo "512-byte resource ours on: ", rl_count_value($max, $l->token), "\n";
$l->release();
$l = $rl->lock($res, 2 ** 31 - 1);
echo "ttl 2^31-1: PTTL > 2^31-10000 on: ", count(array_filter(rl_pttls($res), fn($p) => $p > 2 ** 31 - 10000)), "\n";
$l->release();
$l = $rl->lock($res, 3);   // validity may come out <= 0 (3 - 2.03 - elapsed): null or a lock, never an error
echo "ttl 3: ", $l === null ? 'null' : 'lock', "\n";
$l?->release();
echo "keys left: ", rl_count_keys($res) + rl_count_keys($max), "\n";
rl_del($res, $max);
?>
--EXPECTF--
lock empty resource: ValueError ok
lock NUL resource: ValueError ok
lock 513-byte resource: ValueError ok
lock ttl 0: ValueError ok
lock ttl -1: ValueError ok
lock ttl 2^31: ValueError ok
lock ttl PHP_INT_MAX: ValueError ok
lock ttl string: TypeError ok
lock options not array: TypeError ok
sync empty resource: ValueError ok
sync NUL resource: ValueError ok
sync ttl 0: ValueError ok
sync not callable string: TypeError ok
sync not callable int: TypeError ok
sync not callable array: TypeError ok
isLocked empty: ValueError ok
isLocked NUL: ValueError ok
isLocked 513 bytes: ValueError ok
keys created: 0
extend 0: ValueError ok
extend -5: ValueError ok
extend 2^31: ValueError ok
still ours after bad extends: 5, ttl 5000
512-byte resource ours on: 5
ttl 2^31-1: PTTL > 2^31-10000 on: 5
ttl 3: %s
keys left: 0
