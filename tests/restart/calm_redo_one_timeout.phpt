--TEST--
Calm attempts: a calm attempt that meets a restarted node is made again, checked, without the nodes that failed it: a hung node costs one timeout, not two, and is calm no more
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('calmredo');
$timeout = 1000;
$rl = rl_new(['prefix' => $p, 'restart_grace' => 'auto', 'retry_count' => 0, 'timeout' => $timeout]);
for ($k = 0; $k < 3; $k++) $rl->lock('r', 5000)->release(); // every node calm for 5 s
$hung = [rl_nodes()[3], rl_nodes()[4]];
$before = array_map(fn($n) => $rl->stats()['nodes'][$n]['timeouts'], $hung);
// nodes 4 and 5 hang, node 1 restarts: the calm attempt has 2 votes, waits for
// 4 and 5 until its timeout, and meets node 1 as another incarnation
rl_node_ctl('pause', 4);
rl_node_ctl('pause', 5);
rt_restart_empty(1);
$t0 = hrtime(true);
try {
    $l = $rl->lock('r', 5000);
    echo "outcome: ", $l ? 'acquired' : 'null', "\n";
} catch (RedLock\QuorumException $e) {
    $l = null;
    echo "outcome: QuorumException\n";
}
$ms = rl_ms($t0);
rl_node_ctl('resume', 4);
rl_node_ctl('resume', 5);
foreach ($hung as $k => $n) echo "node ", $k + 4, " timeouts: +", $rl->stats()['nodes'][$n]['timeouts'] - $before[$k], "\n";
echo "within one timeout: ", $ms < 2 * $timeout ? 'yes' : "no ($ms ms)", "\n";
if ($l) $l->release();
rl_del($p . 'r');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
outcome: QuorumException
node 4 timeouts: +1
node 5 timeouts: +1
within one timeout: yes
