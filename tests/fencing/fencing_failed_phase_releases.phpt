--TEST--
fencing: a fence phase that misses the quorum releases the lock on all nodes and the call fails (INCR refused, raise refused, nodes paused)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$prefix = rl_name('fencing_fail') . ':';
$key = $prefix . "\0redlock:fence";
$res = 'r' . bin2hex(random_bytes(4));
$rl = rl_new(['prefix' => $prefix, 'retry_count' => 0, 'connect_timeout' => 100, 'timeout' => 100, 'fencing' => true]);
$plain = rl_new(['prefix' => $prefix, 'retry_count' => 0]);
$setCounter = function (array $nodes, string $v) use ($key) {
    foreach ($nodes as $i) {
        rl_redis(rl_nodes()[$i - 1])->cmd('SET', $key, $v);
    }
};
$report = function (string $label, callable $fn) use ($prefix, $res) {
    try {
        $l = $fn();
        echo "$label: returned ", get_debug_type($l), "\n";
    } catch (RedLock\QuorumException $e) {
        echo "$label: QuorumException\n";
        return $e->getMessage();
    }
    return '';
};

// (1) INCR refused on 3 of 5 nodes (the counter is not an integer there)
$setCounter([1, 2, 3], 'junk');
$m = $report('INCR refused on 3', fn() => $rl->lock($res, 10000));
echo "message says why: ", var_export(str_contains($m, 'not an integer'), true), "\n";
echo "lock key left on: ", rl_count_keys($prefix . $res), "\n";
// the lock is free: an unfenced lock() gets it at once
$l = $plain->lock($res, 10000);
echo "free again: ", var_export($l instanceof RedLock\Lock, true), "\n";
$l->release();

// (2) INCR works, the raise is refused on 3 of 5 nodes (a counter beyond 2^53)
$setCounter([1, 2, 3], '9007199254740992');
$setCounter([4, 5], '5');
$m = $report('raise refused on 3', fn() => $rl->lock($res, 10000));
echo "message says why: ", var_export(str_contains($m, 'out of range'), true), "\n";
echo "lock key left on: ", rl_count_keys($prefix . $res), "\n";
// the INCRs did run (phase 1 answered), nobody was raised to M
echo "counters: ", implode(',', rl_values($key)), "\n";
echo "stats: quorum_failures ", $rl->stats()['quorum_failures'] > 0 ? '> 0' : '0', "\n";

// (3) 2 nodes paused, a third refuses INCR: SET gets 3, INCR only 2
rl_del($key);
$setCounter([3], 'junk');
rl_node_ctl('pause', 4);
rl_node_ctl('pause', 5);
$t0 = hrtime(true);
$m = $report('2 paused + INCR refused on 1', fn() => $rl->lock($res, 10000));
$ms = rl_ms($t0);
echo "names nodes 3, 4, 5: ", var_export(str_contains($m, rl_nodes()[2]) && str_contains($m, rl_nodes()[3]) && str_contains($m, rl_nodes()[4]), true), "\n";
echo "bounded: ", $ms < 1500 ? 'yes' : "no ($ms ms)", "\n";
$v = rl_values_now($prefix . $res);
echo "lock key on the answering nodes 1-3: ", count(array_filter([$v[1], $v[2], $v[3]], 'is_string')), "\n";
// synchronized() fails the same way, without calling the callback
$called = false;
try {
    $rl->synchronized($res, 10000, function () use (&$called) { $called = true; });
} catch (RedLock\QuorumException $e) {
    echo "synchronized: QuorumException, callback called: ", var_export($called, true), "\n";
}
rl_node_ctl('resume', 4);
rl_node_ctl('resume', 5);
usleep(200000);
// healthy again (counter fixed): fenced locks work, the fence is above every counter
rl_del($key);
$l = $rl->lock($res, 10000);
echo "after repair: ", get_debug_type($l?->fence), "\n";
$l?->release();
rl_del($key, $res, $prefix . $res);
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
INCR refused on 3: QuorumException
message says why: true
lock key left on: 0
free again: true
raise refused on 3: QuorumException
message says why: true
lock key left on: 0
counters: 9007199254740993,9007199254740993,9007199254740993,6,6
stats: quorum_failures > 0
2 paused + INCR refused on 1: QuorumException
names nodes 3, 4, 5: true
bounded: yes
lock key on the answering nodes 1-3: 0
synchronized: QuorumException, callback called: false
after repair: int
