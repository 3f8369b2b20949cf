--TEST--
Bad $options (constructor and per call): ValueError/TypeError naming the option, never a warning
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$nodes = rl_nodes();
$TV = 'TypeError|ValueError';
$ctor = fn(array $o) => fn() => new RedLock($nodes, $o);

echo "-- constructor\n";
rl_expect('retry_count -1', $ctor(['retry_count' => -1]), 'ValueError', '$options', 'retry_count');
rl_expect('retry_count 10001', $ctor(['retry_count' => 10001]), 'ValueError', '$options', 'retry_count');
rl_expect('retry_count string', $ctor(['retry_count' => 'abc']), $TV, 'retry_count');
rl_expect('retry_count array', $ctor(['retry_count' => []]), $TV, 'retry_count');
rl_expect('retry_delay -1', $ctor(['retry_delay' => -1]), 'ValueError', 'retry_delay');
rl_expect('retry_jitter -1', $ctor(['retry_jitter' => -1]), 'ValueError', 'retry_jitter');
rl_expect('wait -1', $ctor(['wait' => -1]), 'ValueError', 'wait');
rl_expect('drift_factor NAN', $ctor(['drift_factor' => NAN]), 'ValueError', 'drift_factor');
rl_expect('drift_factor INF', $ctor(['drift_factor' => INF]), 'ValueError', 'drift_factor');
rl_expect('drift_factor -INF', $ctor(['drift_factor' => -INF]), 'ValueError', 'drift_factor');
rl_expect('drift_factor 1.0', $ctor(['drift_factor' => 1.0]), 'ValueError', 'drift_factor');
rl_expect('drift_factor -0.01', $ctor(['drift_factor' => -0.01]), 'ValueError', 'drift_factor');
rl_expect('drift_factor string', $ctor(['drift_factor' => 'x']), $TV, 'drift_factor');
rl_expect('connect_timeout 0', $ctor(['connect_timeout' => 0]), 'ValueError', 'connect_timeout');
rl_expect('connect_timeout 60001', $ctor(['connect_timeout' => 60001]), 'ValueError', 'connect_timeout');
rl_expect('connect_timeout -5', $ctor(['connect_timeout' => -5]), 'ValueError', 'connect_timeout');
rl_expect('timeout 0', $ctor(['timeout' => 0]), 'ValueError', 'timeout');
rl_expect('timeout 60001', $ctor(['timeout' => 60001]), 'ValueError', 'timeout');
rl_expect('timeout -1', $ctor(['timeout' => -1]), 'ValueError', 'timeout');
rl_expect('persistent string', $ctor(['persistent' => 'yes']), $TV, 'persistent');
rl_expect('auto_release array', $ctor(['auto_release' => []]), $TV, 'auto_release');
rl_expect('throw_on_lost string', $ctor(['throw_on_lost' => 'no']), $TV, 'throw_on_lost');
rl_expect('wake_on_release int', $ctor(['wake_on_release' => 1]), $TV, 'wake_on_release');
rl_expect('prefix array', $ctor(['prefix' => []]), $TV, 'prefix');
rl_expect('unknown key', $ctor(['retries' => 3]), 'ValueError', 'retries');
rl_expect('int key', $ctor([0 => 3]), 'ValueError', '$options');
rl_expect('fencing string', $ctor(['fencing' => 'yes']), $TV, 'fencing');
rl_expect('wait + retry_count', $ctor(['wait' => 100, 'retry_count' => 2]), 'ValueError', 'wait', 'retry_count');

// valid edges are accepted
foreach ([
    ['retry_count' => 0], ['retry_count' => 10000], ['retry_delay' => 0], ['retry_jitter' => 0],
    ['wait' => 0], ['drift_factor' => 0.0], ['drift_factor' => 0.999], ['connect_timeout' => 1],
    ['connect_timeout' => 60000], ['timeout' => 1], ['timeout' => 60000], ['persistent' => false],
    ['prefix' => ''], ['fencing' => false], ['fencing' => true], ['auto_release' => false], ['throw_on_lost' => true],
    ['wake_on_release' => false], ['wake_on_release' => true],
    ['wait' => 0, 'retry_count' => 1], // wait 0 is "no wait": no second stopping rule
] as $o) {
    try {
        new RedLock($nodes, $o);
    } catch (Throwable $e) {
        echo "rejected valid ", json_encode($o), ": ", get_class($e), ": ", $e->getMessage(), "\n";
    }
}
echo "valid edges accepted\n";

echo "-- lock() per call\n";
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('bad_input_options');
$lock = fn(array $o) => fn() => $rl->lock($res, 1000, $o);
rl_expect('prefix', $lock(['prefix' => 'x:']), 'ValueError', '$options', 'prefix');
rl_expect('connect_timeout', $lock(['connect_timeout' => 10]), 'ValueError', '$options', 'connect_timeout');
rl_expect('timeout', $lock(['timeout' => 10]), 'ValueError', '$options', 'timeout');
rl_expect('persistent', $lock(['persistent' => false]), 'ValueError', '$options', 'persistent');
rl_expect('retry_count 10001', $lock(['retry_count' => 10001]), 'ValueError', '$options', 'retry_count');
rl_expect('retry_delay -1', $lock(['retry_delay' => -1]), 'ValueError', '$options', 'retry_delay');
rl_expect('drift_factor 1.0', $lock(['drift_factor' => 1.0]), 'ValueError', '$options', 'drift_factor');
rl_expect('drift_factor NAN', $lock(['drift_factor' => NAN]), 'ValueError', '$options', 'drift_factor');
rl_expect('unknown key', $lock(['retry' => 1]), 'ValueError', '$options', 'retry');
rl_expect('wait + retry_count', $lock(['wait' => 100, 'retry_count' => 1]), 'ValueError', '$options', 'wait');
rl_expect('fencing int', $lock(['fencing' => 1]), $TV, 'fencing');
rl_expect('auto_release string', $lock(['auto_release' => 'x']), $TV, 'auto_release');
echo "keys created by rejected calls: ", rl_count_keys($res), "\n";

echo "-- synchronized() per call\n";
$called = false;
$sync = fn(array $o) => function () use ($rl, $res, $o, &$called) {
    $rl->synchronized($res, 1000, function () use (&$called) { $called = true; }, $o);
};
rl_expect('prefix', $sync(['prefix' => 'x:']), 'ValueError', '$options', 'prefix');
rl_expect('timeout', $sync(['timeout' => 10]), 'ValueError', '$options', 'timeout');
rl_expect('retry_count -1', $sync(['retry_count' => -1]), 'ValueError', '$options', 'retry_count');
rl_expect('unknown key', $sync(['nope' => 1]), 'ValueError', '$options', 'nope');
var_dump($called);
echo "keys created by rejected calls: ", rl_count_keys($res), "\n";

// per-call options that are allowed
foreach ([['retry_count' => 0], ['retry_delay' => 0], ['retry_jitter' => 0], ['wait' => 0],
          ['drift_factor' => 0.0], ['fencing' => false], ['fencing' => true], ['auto_release' => true], ['throw_on_lost' => false],
          ['wake_on_release' => false], ['wait' => 100, 'wake_on_release' => true], ['wait' => 0, 'retry_count' => 1]] as $o) {
    $l = $rl->lock($res, 1000, $o);
    if (!$l) { echo "lock with ", json_encode($o), " failed\n"; continue; }
    $l->release();
}
echo "per-call options accepted\n";
rl_del($res);
?>
--EXPECT--
-- constructor
retry_count -1: ValueError ok
retry_count 10001: ValueError ok
retry_count string: TypeError|ValueError ok
retry_count array: TypeError|ValueError ok
retry_delay -1: ValueError ok
retry_jitter -1: ValueError ok
wait -1: ValueError ok
drift_factor NAN: ValueError ok
drift_factor INF: ValueError ok
drift_factor -INF: ValueError ok
drift_factor 1.0: ValueError ok
drift_factor -0.01: ValueError ok
drift_factor string: TypeError|ValueError ok
connect_timeout 0: ValueError ok
connect_timeout 60001: ValueError ok
connect_timeout -5: ValueError ok
timeout 0: ValueError ok
timeout 60001: ValueError ok
timeout -1: ValueError ok
persistent string: TypeError|ValueError ok
auto_release array: TypeError|ValueError ok
throw_on_lost string: TypeError|ValueError ok
wake_on_release int: TypeError|ValueError ok
prefix array: TypeError|ValueError ok
unknown key: ValueError ok
int key: ValueError ok
fencing string: TypeError|ValueError ok
wait + retry_count: ValueError ok
valid edges accepted
-- lock() per call
prefix: ValueError ok
connect_timeout: ValueError ok
timeout: ValueError ok
persistent: ValueError ok
retry_count 10001: ValueError ok
retry_delay -1: ValueError ok
drift_factor 1.0: ValueError ok
drift_factor NAN: ValueError ok
unknown key: ValueError ok
wait + retry_count: ValueError ok
fencing int: TypeError|ValueError ok
auto_release string: TypeError|ValueError ok
keys created by rejected calls: 0
-- synchronized() per call
prefix: ValueError ok
timeout: ValueError ok
retry_count -1: ValueError ok
unknown key: ValueError ok
bool(false)
keys created by rejected calls: 0
per-call options accepted
