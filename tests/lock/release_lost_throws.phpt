--TEST--
throw_on_lost: release()/extend() throw LockLostException instead of returning false
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0, 'throw_on_lost' => true]);
$res = rl_name('release_lost');

// foreign value on a majority
$l = $rl->lock($res, 10000);
rl_set_on([1, 2, 3], $res, 'foreign', 20000);
try {
    $l->release();
    echo "no exception\n";
} catch (RedLock\LockLostException $e) {
    echo get_class($e), "\n";
    var_dump($e instanceof RedLock\Exception, $e instanceof RuntimeException);
}
var_dump($l->isReleased());
echo "foreign on: ", rl_count_value($res, 'foreign'), "\n";
rl_del($res);

// released twice
$l = $rl->lock($res, 10000);
var_dump($l->release());
try {
    $l->release();
    echo "no exception\n";
} catch (RedLock\LockLostException $e) {
    echo "second release: LockLostException\n";
}

// extend of an expired lock
$l = $rl->lock($res, 100);
usleep(150000);
try {
    $l->extend(5000);
    echo "no exception\n";
} catch (RedLock\LockLostException $e) {
    echo "extend expired: LockLostException\n";
}
echo "keys: ", rl_count_keys($res), "\n";

// per-call option, default object
$plain = rl_new(['retry_count' => 0]);
$l = $plain->lock($res, 100, ['throw_on_lost' => true]);
usleep(150000);
try {
    $l->release();
    echo "no exception\n";
} catch (RedLock\LockLostException $e) {
    echo "per-call option: LockLostException\n";
}
// without the option: plain false
$l = $plain->lock($res, 100);
usleep(150000);
var_dump($l->release(), $l->extend(1000));
rl_del($res);
?>
--EXPECT--
RedLock\LockLostException
bool(true)
bool(true)
bool(true)
foreign on: 3
bool(true)
second release: LockLostException
extend expired: LockLostException
keys: 0
per-call option: LockLostException
bool(false)
bool(false)
