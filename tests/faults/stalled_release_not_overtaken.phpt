--TEST--
Stalled node: a release is never overtaken by an older SET still queued at the node (it goes behind it on the same connection), so no key is orphaned after the node resumes
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// three nodes; node 3 is SIGSTOPped while 120 lock/release cycles pile up
// behind it (about 150 KB: many of Redis' 16 KB reads)
$nodes = array_slice(rl_nodes(), 0, 3);
$rl = new RedLock($nodes, ['retry_count' => 0, 'timeout' => 50]);
// long resource names (500 bytes): the backlog spans many of Redis' 16 KB reads
$res = rl_name('stalled_overtake') . ':' . str_repeat('x', 450);
$rl->lock("$res:warm", 1000)->release();
$sets0 = rl_cmd_calls(3, 'set');
rl_node_ctl('pause', 3);
$bad = 0;
for ($i = 0; $i < 120; $i++) {
    $l = $rl->lock("$res:$i", 60000);
    $bad += !$l || !$l->release();
}
$k = $rl->lock("$res:K", 60000);
usleep(2100000);                 // node 3's oldest reply is now over 2 s old
$released = $k->release();
rl_node_ctl('resume', 3);
// bounded: until node 3 has run every SET we sent it
for ($t = 0; $t < 100 && rl_cmd_calls(3, 'set') < $sets0 + 121; $t++) usleep(20000);
usleep(50000);
$r = rl_redis($nodes[2]);
$left = $r->cmd('KEYS', "$res:*");
$pttl = $r->cmd('PTTL', "$res:K");
$r->close();
echo "cycles failed: $bad\n";
var_dump($released);
echo "SETs node 3 ran: ", rl_cmd_calls(3, 'set') - $sets0, "\n";
echo "keys left on node 3: ", count($left), ($left ? " (K pttl $pttl)" : ""), "\n";
echo "keys left anywhere: ", rl_count_keys("$res:K"), "\n";
?>
--CLEAN--
<?php require __DIR__ . '/../config.inc'; rl_restore_nodes(); ?>
--EXPECT--
cycles failed: 0
bool(true)
SETs node 3 ran: 121
keys left on node 3: 0
keys left anywhere: 0
