--TEST--
After a majority of nodes restarted, the first lock() on the same object acquires: a connect begun by the last failed call (its cleanup) and refused then is old news, not this call's reason; the restarted nodes get the key
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// a connect_timeout longer than the restarts take: the failed call's queued
// cleanup is still connecting to the dead nodes when they come back
$ct = (int) rl_slack(10000);
$rl = rl_new(['retry_count' => 0, 'connect_timeout' => $ct, 'timeout' => 200]);
$res = rl_name('majority_restart');
$l = $rl->lock($res . ':a', 5000);
echo "before: ", var_export($l instanceof RedLock\Lock && $l->release(), true), "\n";
foreach ([3, 4, 5] as $i) rl_node_ctl('kill', $i);
try {
    $rl->lock($res . ':b', 5000);
    echo "3 of 5 dead: no exception\n";
} catch (RedLock\QuorumException $e) {
    echo "3 of 5 dead: QuorumException, refused: ", var_export(str_contains($e->getMessage(), 'refused'), true), "\n";
}
$t = hrtime(true);
$sh = 'REDLOCK_NODES_DIR=' . escapeshellarg(rl_nodes_dir()) . ' bash ' . escapeshellarg(__DIR__ . '/../nodes.sh');
exec("($sh restart 3 & $sh restart 4 & $sh restart 5 & wait) >/dev/null 2>&1");
echo "restarted within the connect timeout: ", var_export(rl_ms($t) < $ct, true), "\n";
try {
    $l = $rl->lock($res . ':c', 5000);
    echo "first lock() after the restart: ", $l instanceof RedLock\Lock ? 'acquired' : 'null', "\n";
    echo "nodes holding it: ", rl_count_keys($res . ':c'), "\n";
    $l?->release();
} catch (RedLock\QuorumException $e) {
    echo "first lock() after the restart: ", $e->getMessage(), "\n";
}
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
before: true
3 of 5 dead: QuorumException, refused: true
restarted within the connect timeout: true
first lock() after the restart: acquired
nodes holding it: 5
