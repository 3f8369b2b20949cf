--TEST--
Quorum: 2 of 5 nodes paused (SIGSTOP) -> lock acquired within about timeout + margin
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0, 'connect_timeout' => 100, 'timeout' => 100]);
$res = rl_name('quorum_paused_nodes');

rl_node_ctl('pause', 1);
rl_node_ctl('pause', 5);
$t0 = hrtime(true);
$lock = $rl->lock($res, 5000);
$ms = rl_ms($t0);
var_dump($lock instanceof RedLock\Lock);
// connect (100) + round trip (100) + margin, never the sum over nodes
echo "bounded: ", $ms < 600 ? 'yes' : "no ($ms ms)", "\n";
$live = 0;
foreach ([2, 3, 4] as $i) {
    $r = rl_redis(rl_nodes()[$i - 1]);
    $live += $r->get($res) === $lock->token;
}
echo "live nodes with our token: $live\n";
var_dump($lock->isValid());
$t0 = hrtime(true);
var_dump($lock->release());
echo "release bounded: ", rl_ms($t0) < 600 ? 'yes' : 'no', "\n";
foreach ([2, 3, 4] as $i) {
    $r = rl_redis(rl_nodes()[$i - 1]);
    echo "node $i key: ", var_export($r->exists($res), true), "\n";
}
rl_node_ctl('resume', 1);
rl_node_ctl('resume', 5);
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
bool(true)
bounded: yes
live nodes with our token: 3
bool(true)
bool(true)
release bounded: yes
node 2 key: 0
node 3 key: 0
node 4 key: 0
nodes up: 5
