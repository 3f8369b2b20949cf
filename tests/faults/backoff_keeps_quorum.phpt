--TEST--
Back-off never costs the quorum: after 3 of 5 nodes come back from a restart while still in their back-off, lock() tries every node and succeeds (a node is skipped only while the others can make a quorum)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('backoff_quorum');
$rl->lock("$res:warm", 1000)->release();
foreach ([1, 2, 3] as $i) rl_node_ctl('kill', $i);
// refused again and again for 1.6 s: every node's back-off grows
$t = hrtime(true);
$fails = 0;
while (rl_ms($t) < 1600) {
    try { $rl->lock($res, 5000); } catch (RedLock\QuorumException $e) { $fails++; }
    usleep(20000);
}
foreach ([1, 2, 3] as $i) rl_node_ctl('restart', $i);
try {
    $l = $rl->lock($res, 5000);
    echo "lock after restart: ", $l instanceof RedLock\Lock ? 'acquired' : 'null', "\n";
    echo "on nodes: ", $l ? rl_count_value($res, $l->token) : 0, "\n";
    $l?->release();
} catch (RedLock\QuorumException $e) {
    echo "lock after restart: QuorumException: ", $e->getMessage(), "\n";
}
echo "failed while down: ", $fails > 5 ? 'yes' : "no ($fails)", "\n";
?>
--CLEAN--
<?php require __DIR__ . '/../config.inc'; rl_restore_nodes(); ?>
--EXPECT--
lock after restart: acquired
on nodes: 5
failed while down: yes
