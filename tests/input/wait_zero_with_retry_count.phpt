--TEST--
Options: wait => 0 means "no wait" and may be combined with retry_count (constructor and per call); wait > 0 with retry_count stays a ValueError
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$res = rl_name('wait_zero_retry');
rl_set_on([1, 2, 3], $res, 'foreign', 10000);
$opt = ['wait' => 0, 'retry_count' => 2, 'retry_delay' => 10, 'retry_jitter' => 0];

try {
    $rl = rl_new($opt);
    echo "constructor: accepted\n";
} catch (Throwable $e) {
    echo "constructor: ", get_class($e), ": ", $e->getMessage(), "\n";
    $rl = rl_new();
}
$sets = rl_cmd_calls(4, 'set');
try {
    $l = $rl->lock($res, 1000);
    echo "lock: ", var_export($l, true), ", attempts: ", rl_cmd_calls(4, 'set') - $sets, "\n";
} catch (Throwable $e) {
    echo "lock: ", get_class($e), ": ", $e->getMessage(), "\n";
}

$sets = rl_cmd_calls(4, 'set');
try {
    $l = rl_new()->lock($res, 1000, ['wait' => 0, 'retry_count' => 1, 'retry_delay' => 10, 'retry_jitter' => 0]);
    echo "per call: ", var_export($l, true), ", attempts: ", rl_cmd_calls(4, 'set') - $sets, "\n";
} catch (Throwable $e) {
    echo "per call: ", get_class($e), ": ", $e->getMessage(), "\n";
}
try {
    rl_new()->synchronized($res, 1000, fn() => 1, ['retry_count' => 0, 'wait' => 0]);
} catch (Throwable $e) {
    echo "synchronized: ", get_class($e), "\n";
}

rl_expect('ctor wait 100 + retry_count', fn() => rl_new(['wait' => 100, 'retry_count' => 1]), 'ValueError', 'wait', 'retry_count');
rl_expect('lock wait 100 + retry_count', fn() => rl_new()->lock($res, 1000, ['retry_count' => 0, 'wait' => 100]), 'ValueError', 'wait', 'retry_count');
rl_del($res);
?>
--EXPECT--
constructor: accepted
lock: NULL, attempts: 3
per call: NULL, attempts: 2
synchronized: RedLock\LockConflictException
ctor wait 100 + retry_count: ValueError ok
lock wait 100 + retry_count: ValueError ok
