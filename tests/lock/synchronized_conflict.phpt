--TEST--
synchronized(): LockConflictException where lock() would return null; $fn is not called
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$holder = rl_new();
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('synchronized_conflict');
$held = $holder->lock($res, 10000);
$called = false;
try {
    $rl->synchronized($res, 5000, function () use (&$called) { $called = true; });
    echo "no exception\n";
} catch (RedLock\LockConflictException $e) {
    echo get_class($e), "\n";
    var_dump($e instanceof RedLock\Exception, $e instanceof RuntimeException);
}
var_dump($called);
echo "holder intact on: ", rl_count_value($res, $held->token), "\n";

// retries per call are honoured
$t0 = hrtime(true);
try {
    $rl->synchronized($res, 5000, fn() => 1, ['retry_count' => 2, 'retry_delay' => 50, 'retry_jitter' => 0]);
} catch (RedLock\LockConflictException $e) {
    echo "retried: ", rl_ms($t0) >= 95 ? 'yes' : 'no', "\n";
}
// validity <= 0 is a conflict too
try {
    $rl->synchronized(rl_name('synchronized_conflict2'), 2, fn() => 1);
} catch (RedLock\LockConflictException $e) {
    echo "ttl 2: LockConflictException\n";
}
$held->release();
rl_del($res);
?>
--EXPECT--
RedLock\LockConflictException
bool(true)
bool(true)
bool(false)
holder intact on: 5
retried: yes
ttl 2: LockConflictException
