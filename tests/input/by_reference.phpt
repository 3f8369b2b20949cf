--TEST--
Bad input: an option, a restore() option or a lockAll() resource given by reference is judged by its value (no "must be of type int, int given")
--EXTENSIONS--
redlock
--SKIPIF--
<?php if (!extension_loaded('redlock')) die('skip redlock not loaded'); ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// Nothing here reaches a node: every case is refused before any connection.
$ok = '127.0.0.1:7001';
$rl = new RedLock([$ok, '127.0.0.1:7002', '127.0.0.1:7003'], ['retry_count' => 0]);

// on 574973c each but the last was a TypeError "... must be of type int, int given" ("string given" for
// lockAll()); the constructor's and lock()'s options were read by value already (the last)
$w = 0;
rl_expect('semaphore weight 0 by reference', fn() => $rl->semaphore('r', 3, 1000, ['weight' => &$w]), 'ValueError', '"weight" must be between 1 and the limit');
$w2 = 'two';
rl_expect('semaphore weight string by reference', fn() => $rl->semaphore('r', 3, 1000, ['weight' => &$w2]), 'TypeError', '"weight" must be of type int, string given');
$l = 0;
rl_expect('restore limit 0 by reference', fn() => $rl->restore('r', str_repeat('a', 40), ['mode' => 'permit', 'limit' => &$l]), 'ValueError', '"limit" must be between 1 and');
$empty = '';
rl_expect('lockAll element by reference', fn() => $rl->lockAll([&$empty, 'b'], 1000), 'ValueError', 'element 0 must be 1 to');
$list = ['a', 'a'];
$ref = &$list[1];
rl_expect('lockAll duplicate by reference', fn() => $rl->lockAll($list, 1000), 'ValueError', 'must not name "a" twice');
$rc = -1;
rl_expect('option by reference', fn() => new RedLock([$ok], ['retry_count' => &$rc]), 'ValueError', '"retry_count" must be between');
?>
--EXPECT--
semaphore weight 0 by reference: ValueError ok
semaphore weight string by reference: TypeError ok
restore limit 0 by reference: ValueError ok
lockAll element by reference: ValueError ok
lockAll duplicate by reference: ValueError ok
option by reference: ValueError ok
