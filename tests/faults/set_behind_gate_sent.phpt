--TEST--
A SET held behind the SELECT gate of a node that answers after the quorum decided still goes out in the same call: with no later call, the key reaches that node
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$nodes = array_map(fn($a) => "redis://$a/2", array_slice(rl_nodes(), 0, 3));
// (node 1 is resumed 150 ms in; timeouts of 3 s leave a loaded machine room for that)
$rl = new RedLock($nodes, ['retry_count' => 0, 'timeout' => 3000, 'connect_timeout' => 3000, 'auto_release' => false]);
$res = rl_name('gate_set');
rl_node_ctl('pause', 1);         // connect accepted by the kernel, SELECT unanswered
$ctl = escapeshellarg(__DIR__ . '/../nodes.sh');
exec('(sleep 0.15; REDLOCK_NODES_DIR=' . escapeshellarg(rl_nodes_dir()) . " bash $ctl resume 1) >/dev/null 2>&1 &");
$l = $rl->lock($res, 10000);
echo "lock: ", $l instanceof RedLock\Lock ? 'acquired' : 'null', "\n";
// no further redlock call: read node 1 directly (bounded by rl_values)
$v = rl_values($res, 2);
echo "on node 1: ", $v[1] === $l?->token ? 'yes' : 'no', "\n";
echo "on nodes: ", count(array_filter($v, fn($x) => $x === $l?->token)), "\n";
$l?->release();
rl_del($res);
?>
--CLEAN--
<?php require __DIR__ . '/../config.inc'; rl_restore_nodes(); ?>
--EXPECT--
lock: acquired
on node 1: yes
on nodes: 3
