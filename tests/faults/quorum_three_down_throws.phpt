--TEST--
Quorum: 3 of 5 nodes killed -> QuorumException naming each failed node; no key left on the live ones
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new();
$res = rl_name('quorum_three_down');
$down = [1, 3, 5];
foreach ($down as $i) {
    rl_node_ctl('kill', $i);
}
$before = $rl->stats()['quorum_failures'];

$t0 = hrtime(true);
try {
    $rl->lock($res, 10000, ['retry_count' => 1, 'retry_delay' => 10, 'retry_jitter' => 0]);
    echo "no exception\n";
} catch (RedLock\QuorumException $e) {
    echo get_class($e), "\n";
    var_dump($e instanceof RedLock\Exception, $e instanceof RuntimeException);
    $m = $e->getMessage();
    foreach ($down as $i) {
        echo "names node $i: ", str_contains($m, rl_nodes()[$i - 1]) ? 'yes' : "no: $m", "\n";
    }
    echo "mentions quorum: ", stripos($m, 'quorum') !== false ? 'yes' : "no: $m", "\n";
}
$ms = rl_ms($t0);
echo "bounded: ", $ms < 1000 ? 'yes' : "no ($ms ms)", "\n";
echo "keys left on live nodes: ", rl_count_keys($res), "\n";
echo "quorum_failures +", $rl->stats()['quorum_failures'] - $before, "\n";

try {
    $rl->isLocked($res);
    echo "isLocked: no exception\n";
} catch (RedLock\QuorumException $e) {
    echo "isLocked: QuorumException\n";
}

$called = false;
try {
    $rl->synchronized($res, 1000, function () use (&$called) { $called = true; }, ['retry_count' => 0]);
    echo "synchronized: no exception\n";
} catch (RedLock\QuorumException $e) {
    echo "synchronized: QuorumException, fn called: ", var_export($called, true), "\n";
}
echo "keys left on live nodes: ", rl_count_keys($res), "\n";

foreach ($down as $i) {
    rl_node_ctl('restart', $i);
}
echo "nodes up: ", count(array_filter(rl_nodes(), 'rl_ping')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
RedLock\QuorumException
bool(true)
bool(true)
names node 1: yes
names node 3: yes
names node 5: yes
mentions quorum: yes
bounded: yes
keys left on live nodes: 0
quorum_failures +1
isLocked: QuorumException
synchronized: QuorumException, fn called: false
keys left on live nodes: 0
nodes up: 5
