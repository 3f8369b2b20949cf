--TEST--
Quorum: 2 of 5 nodes paused (SIGSTOP) -> lock acquired in parallel: a first call (new connections, whose run_id is awaited) within one timeout, a later call and the release without waiting for the paused nodes at all
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// T is what the test controls: a client that waited for the paused nodes one
// after the other would take 2 x T on the first call (each of nodes 1 and 5
// its own T) and T on a later one (node 1 comes first); one that waits for
// them in parallel takes T on the first call (the run_id of a new connection
// is awaited, docs/api.md "Nodes") and no wait on a later one.
$T = (int) rl_slack(400);
$rl = rl_new(['retry_count' => 0, 'connect_timeout' => $T, 'timeout' => $T]);
$res = rl_name('quorum_paused_nodes');

rl_node_ctl('pause', 1);
rl_node_ctl('pause', 5);
$t0 = hrtime(true);
$lock = $rl->lock($res, 10 * $T);
$ms = rl_ms($t0);
var_dump($lock instanceof RedLock\Lock);
echo "first call within one timeout (< 2 x T): ", $ms < 2 * $T ? 'yes' : "no ($ms ms, T = $T ms)", "\n";
$t0 = hrtime(true);
$second = $rl->lock("$res:2", 10 * $T);
$ms = rl_ms($t0);
var_dump($second instanceof RedLock\Lock);
echo "later call without waiting (< T): ", $ms < $T ? 'yes' : "no ($ms ms, T = $T ms)", "\n";
$live = 0;
foreach ([2, 3, 4] as $i) {
    $r = rl_redis(rl_nodes()[$i - 1]);
    $live += $r->get($res) === $lock->token;
}
echo "live nodes with our token: $live\n";
var_dump($lock->isValid());
$t0 = hrtime(true);
var_dump($lock->release());
$ms = rl_ms($t0);
echo "release without waiting (< T): ", $ms < $T ? 'yes' : "no ($ms ms, T = $T ms)", "\n";
var_dump($second->release());
foreach ([2, 3, 4] as $i) {
    $r = rl_redis(rl_nodes()[$i - 1]);
    echo "node $i key: ", var_export($r->exists($res), true), "\n";
}
rl_node_ctl('resume', 1);
rl_node_ctl('resume', 5);
usleep(100000);
rl_del($res);
rl_del("$res:2");
echo "nodes up: ", count(array_filter(rl_nodes(), 'rl_ping')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
bool(true)
first call within one timeout (< 2 x T): yes
bool(true)
later call without waiting (< T): yes
live nodes with our token: 3
bool(true)
bool(true)
release without waiting (< T): yes
bool(true)
node 2 key: 0
node 3 key: 0
node 4 key: 0
nodes up: 5
