--TEST--
Quorum: 3 of 5 nodes paused -> QuorumException (timeouts) within a bounded time
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0, 'connect_timeout' => 100, 'timeout' => 100]);
$res = rl_name('quorum_three_paused');
$paused = [2, 3, 4];
foreach ($paused as $i) {
    rl_node_ctl('pause', $i);
}
$t0 = hrtime(true);
try {
    $rl->lock($res, 10000);
    echo "no exception\n";
} catch (RedLock\QuorumException $e) {
    $m = $e->getMessage();
    echo "QuorumException\n";
    foreach ($paused as $i) {
        echo "names node $i: ", str_contains($m, rl_nodes()[$i - 1]) ? 'yes' : "no: $m", "\n";
    }
    echo "mentions a timeout: ", stripos($m, 'time') !== false ? 'yes' : "no: $m", "\n";
}
$ms = rl_ms($t0);
echo "bounded: ", $ms < 1000 ? 'yes' : "no ($ms ms)", "\n";
foreach ([1, 5] as $i) {
    $r = rl_redis(rl_nodes()[$i - 1]);
    echo "node $i key: ", var_export($r->exists($res), true), "\n";
}
$s = $rl->stats()['nodes'];
foreach ($paused as $i) {
    echo "node $i timeouts > 0: ", var_export(($s[rl_nodes()[$i - 1]]['timeouts'] ?? 0) > 0, true), "\n";
}
foreach ($paused as $i) {
    rl_node_ctl('resume', $i);
}
usleep(100000);
rl_del($res);
echo "nodes up: ", count(array_filter(rl_nodes(), 'rl_ping')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
QuorumException
names node 2: yes
names node 3: yes
names node 4: yes
mentions a timeout: yes
bounded: yes
node 1 key: 0
node 5 key: 0
node 2 timeouts > 0: true
node 3 timeouts > 0: true
node 4 timeouts > 0: true
nodes up: 5
