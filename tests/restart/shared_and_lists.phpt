--TEST--
Restarted nodes with read locks, lockAll() and permits: a read lock, a lockAll() lock and a permit held on exactly nodes 1-3 keep out an exclusive lock, another lockAll() and a permit of the same slots after node 1 restarts empty (it does not vote), and their next extend() puts them back on node 1
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
require_once __DIR__ . '/../read_locks/shared.inc';
$p = rt_prefix('shlist');
$opts = ['prefix' => $p, 'restart_grace' => 'auto', 'retry_count' => 0,
    'timeout' => (int) rl_slack(500), 'connect_timeout' => (int) rl_slack(500)];
$rl = rl_new($opts);
// each held on exactly nodes 1-3: nodes 4, 5 are taken while it acquires, freed after
rl_set_on([4, 5], $p . 'r', 'foreign', 10000);
rl_set_on([4, 5], $p . 'm2', 'foreign', 10000);
rl_set_on([4, 5], $p . "s\0p0", 'foreign', 10000);
$read = $rl->lock('r', 20000, ['shared' => true]);
$all = $rl->lockAll(['m1', 'm2'], 20000);
$permit = $rl->semaphore('s', 1, 20000);
foreach ([4, 5] as $i) {   // (on nodes 4, 5 only: 1-3 hold ours)
    $c = rl_redis(rl_nodes()[$i - 1]);
    $c->cmd('DEL', $p . 'r', $p . 'm2', $p . "s\0p0");
    $c->close();
}
$onNode = fn() => [
    'read' => array_values(array_map(fn($t) => in_array($read->token, $t, true) ? 1 : 0, sh_readers($p . 'r'))),
    'lockAll' => array_values(array_map(fn($v) => $v === $all->token ? 1 : 0, rl_values($p . 'm1'))),
    'permit' => array_values(array_map(fn($v) => $v === $permit->token ? 1 : 0, rl_values($p . "s\0p0"))),
];
echo "held: ", $read && $all && $permit ? 'all three' : 'no', ", on nodes: ", json_encode($onNode()), "\n";
rt_restart_empty(1);
echo "node 1 after its restart: ", json_encode(array_map(fn($v) => $v[0], $onNode())), "\n";
echo "after node 1's restart, exclusive r: ", var_export($rl->lock('r', 1000), true),
    ", lockAll [m2, m1]: ", var_export($rl->lockAll(['m2', 'm1'], 1000), true),
    ", permit: ", var_export($rl->semaphore('s', 1, 1000), true), "\n";
echo "node 1 voting: ", var_export($rl->stats()['nodes'][rl_nodes()[0]]['voting'], true), "\n";
echo "extend: ", json_encode([$read->extend(20000), $all->extend(20000), $permit->extend(20000)]), "\n";
echo "on nodes after the repair: ", json_encode($onNode()), "\n";
foreach ([$read, $all, $permit] as $l) $l->release();
sh_del($p . 'r');
rl_del($p . 'm1', $p . 'm2', $p . "s\0p0", $p . "s\0pL");
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
held: all three, on nodes: {"read":[1,1,1,0,0],"lockAll":[1,1,1,0,0],"permit":[1,1,1,0,0]}
node 1 after its restart: {"read":0,"lockAll":0,"permit":0}
after node 1's restart, exclusive r: NULL, lockAll [m2, m1]: NULL, permit: NULL
node 1 voting: false
extend: [true,true,true]
on nodes after the repair: {"read":[1,1,1,0,0],"lockAll":[1,1,1,0,0],"permit":[1,1,1,0,0]}
