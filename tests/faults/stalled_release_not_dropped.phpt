--TEST--
Stalled node: with hundreds of cycles behind a paused node (its socket buffer full), no release it owes is dropped; it gets no new SETs meanwhile, and nothing is orphaned once it resumes
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$nodes = array_slice(rl_nodes(), 0, 3);
$rl = new RedLock($nodes, ['retry_count' => 0, 'timeout' => 50]);
// long resource names (500 bytes): the backlog fills the socket buffers sooner
$res = rl_name('stalled_drop') . ':' . str_repeat('x', 450);
$rl->lock("$res:warm", 1000)->release();
rl_node_ctl('pause', 3);
$bad = 0;
for ($i = 0; $i < 480; $i++) {
    $l = $rl->lock("$res:$i", 60000);
    $bad += !$l || !$l->release();
}
$k = $rl->lock("$res:K", 60000);
$released = $k->release();
$st = $rl->stats()['nodes'][$nodes[2]];
rl_node_ctl('resume', 3);
// bounded: node 3 catches up (a later call reads its replies)
$left = null;
for ($t = 0; $t < 60; $t++) {
    usleep(50000);
    $rl->isLocked("$res:probe");
    $r = rl_redis($nodes[2]);
    $left = $r->cmd('KEYS', "$res:*");
    $r->close();
    if (!$left) break;
}
echo "cycles failed: $bad\n";
var_dump($released);
echo "node 3 spared new work while stalled: ", str_contains((string) $st['last_error'], 'stalled') ? 'yes' : "no ({$st['last_error']})", "\n";
echo "keys left on node 3: ", count($left), "\n";
?>
--CLEAN--
<?php require __DIR__ . '/../config.inc'; rl_restore_nodes(); ?>
--EXPECT--
cycles failed: 0
bool(true)
node 3 spared new work while stalled: yes
keys left on node 3: 0
