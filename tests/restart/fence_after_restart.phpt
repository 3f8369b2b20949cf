--TEST--
Restarted nodes: a restarted node's fence counter (back at 0) does not count for a fence before it was raised to a quorum's
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('fence');
$fk = $p . "\0redlock:fence";
// a short int grace: node 1 votes for the SET again soon, but its counter is still 0
$rl = rl_new(['prefix' => $p, 'restart_grace' => 300, 'fencing' => true, 'retry_count' => 0, 'timeout' => 100]);
$l = $rl->lock('r', 5000);
$l->release();
// the last fence handed out lives on nodes 2, 3 only (100); 4, 5 missed it (1)
foreach ([2 => 100, 3 => 100, 4 => 1, 5 => 1] as $i => $v) {
    $r = rl_redis(rl_nodes()[$i - 1]);
    $r->cmd('SET', $fk, (string) $v);
    $r->close();
}
rt_restart_empty(1);
usleep(2500000); // up for the grace (its uptime is known to 1 s: counted 1 s short)
rl_node_ctl('pause', 2);
rl_node_ctl('pause', 3);
// SET quorum from 1, 4, 5; their INCR answers (1, 2, 2) would say fence 2
try {
    $l = $rl->lock('r', 5000);
    echo "nodes 2, 3 paused: ", $l ? "fence {$l->fence}" : 'refused', "\n";
    if ($l) $l->release();
} catch (RedLock\QuorumException $e) {
    echo "nodes 2, 3 paused: QuorumException\n";
}
// (node 1 voted for the SET: only its fence counter kept it out)
echo "node 1 voting: ", var_export($rl->stats()['nodes'][rl_nodes()[0]]['voting'], true), "\n";
rl_node_ctl('resume', 2);
rl_node_ctl('resume', 3);
$l = $rl->lock('r', 5000);
echo "all up: fence > 100: ", $l && $l->fence > 100 ? 'yes' : ($l ? $l->fence : 'refused'), "\n";
$f = $l->fence;
$l->release();
// node 1's counter was raised with that fence: it counts now
rl_node_ctl('pause', 2);
rl_node_ctl('pause', 3);
$l = $rl->lock('r', 5000);
echo "raised, nodes 2, 3 paused: fence above the last: ", $l && $l->fence > $f ? 'yes' : ($l ? $l->fence : 'refused'), "\n";
if ($l) $l->release();
rl_node_ctl('resume', 2);
rl_node_ctl('resume', 3);
rl_del($p . 'r', $fk);
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
nodes 2, 3 paused: QuorumException
node 1 voting: true
all up: fence > 100: yes
raised, nodes 2, 3 paused: fence above the last: yes
