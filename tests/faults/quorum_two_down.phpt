--TEST--
Quorum: 2 of 5 nodes killed -> lock still acquired on the 3 live nodes; release/extend/isLocked work
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('quorum_two_down');

rl_node_ctl('kill', 2);
rl_node_ctl('kill', 4);
$t0 = hrtime(true);
$lock = $rl->lock($res, 10000);
$ms = rl_ms($t0);
var_dump($lock instanceof RedLock\Lock);
echo "fast: ", $ms < 500 ? 'yes' : "no ($ms ms)", "\n";
$v = rl_values($res);
echo "node values: ", implode(',', array_map(fn($x) => $x === false ? 'down' : ($x === $lock->token ? 'ours' : var_export($x, true)), $v)), "\n";
echo "PTTL <= 10000 on live nodes: ", count(array_filter(rl_pttls($res), fn($p) => $p > 0 && $p <= 10000)), "\n";
var_dump($lock->isValid());
var_dump($rl->isLocked($res));
var_dump($lock->extend(20000));
echo "PTTL > 10000 after extend: ", count(array_filter(rl_pttls($res), fn($p) => $p > 10000 && $p <= 20000)), "\n";
var_dump($lock->release());
echo "keys left: ", rl_count_keys($res), "\n";

rl_node_ctl('restart', 2);
rl_node_ctl('restart', 4);
echo "nodes up: ", count(array_filter(rl_nodes(), 'rl_ping')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
bool(true)
fast: yes
node values: ours,down,ours,down,ours
PTTL <= 10000 on live nodes: 3
bool(true)
bool(true)
bool(true)
PTTL > 10000 after extend: 3
bool(true)
keys left: 0
nodes up: 5
