--TEST--
synchronized(): releases when $fn throws, and rethrows the same exception
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('synchronized_exception');
$thrown = new DomainException('boom');
$lock = null;
try {
    $rl->synchronized($res, 5000, function ($l) use ($thrown, &$lock, $res) {
        $lock = $l;
        echo "held on: ", rl_count_value($res, $l->token), "\n";
        throw $thrown;
    });
    echo "no exception\n";
} catch (DomainException $e) {
    var_dump($e === $thrown);
}
var_dump($lock->isReleased());
echo "keys after: ", rl_count_keys($res), "\n";

// an Error too
try {
    $rl->synchronized($res, 5000, function () { return intdiv(1, 0); });
} catch (DivisionByZeroError $e) {
    echo get_class($e), "\n";
}
echo "keys after: ", rl_count_keys($res), "\n";
// the resource is free again
$l = $rl->lock($res, 1000);
var_dump($l instanceof RedLock\Lock);
$l->release();
rl_del($res);
?>
--EXPECT--
held on: 5
bool(true)
bool(true)
keys after: 0
DivisionByZeroError
keys after: 0
bool(true)
