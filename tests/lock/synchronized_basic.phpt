--TEST--
synchronized(): passes the Lock to $fn while held, returns $fn's result, releases afterwards
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('synchronized_basic');
$seen = null;
$ret = $rl->synchronized($res, 5000, function ($lock) use ($res, &$seen) {
    echo get_class($lock), "\n";
    var_dump($lock->resource === $res, $lock->ttl, $lock->isValid());
    echo "held on: ", rl_count_value($res, $lock->token), "\n";
    $seen = $lock;
    return ['answer' => 42];
});
var_dump($ret);
var_dump($seen->isReleased());
echo "keys after: ", rl_count_keys($res), "\n";

// other callable forms and return values
class Job { public function run(RedLock\Lock $l): string { return 'method:' . $l->ttl; } }
var_dump($rl->synchronized($res, 1234, [new Job, 'run']));
var_dump($rl->synchronized($res, 1000, fn() => null));
var_dump($rl->synchronized($res, 1000, (new Job)->run(...)));
echo "keys after: ", rl_count_keys($res), "\n";

// nested on another resource is fine; nesting the same resource is a conflict
$res2 = rl_name('synchronized_basic2');
$out = $rl->synchronized($res, 5000, function () use ($rl, $res, $res2) {
    $inner = $rl->synchronized($res2, 5000, fn($l) => rl_count_keys($res2));
    try {
        $rl->synchronized($res, 5000, fn() => 'reentered');
        return 'reentered';
    } catch (RedLock\LockConflictException $e) {
        return "inner held on $inner, same resource: conflict";
    }
});
var_dump($out);
echo "keys after: ", rl_count_keys($res) + rl_count_keys($res2), "\n";

// a $fn that releases by itself: synchronized returns normally
var_dump($rl->synchronized($res, 5000, fn($l) => $l->release()));
echo "keys after: ", rl_count_keys($res), "\n";
rl_del($res, $res2);
?>
--EXPECT--
RedLock\Lock
bool(true)
int(5000)
bool(true)
held on: 5
array(1) {
  ["answer"]=>
  int(42)
}
bool(true)
keys after: 0
string(11) "method:1234"
NULL
string(11) "method:1000"
keys after: 0
string(40) "inner held on 5, same resource: conflict"
keys after: 0
bool(true)
keys after: 0
