--TEST--
Calm attempts: what a one-node RedLock judged of a node restarted empty (it has no other node to learn the longest TTL from) is not taken by a RedLock of five nodes of the same prefix in the same worker: no second holder
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('onecalm');
$opts = ['prefix' => $p, 'restart_grace' => 'auto', 'retry_count' => 0];
$m = rl_new($opts);
for ($k = 0; $k < 3; $k++) $m->lock('w', 10000)->release(); // every node calm for 10 s, in the pool too
$h = rl_new($opts);
$lh = rt_lock_on_three($h, $p, 'res', 10000);
rt_restart_empty(2);
rt_restart_empty(3);
// one-node RedLock objects of the same prefix on the restarted nodes
foreach ([1, 2] as $i) {
    $one = new RedLock([rl_nodes()[$i]], $opts);
    $l = $one->lock('solo', 5000);
    if ($l) $l->release();
}
// the next request's RedLock of the five nodes
$m2 = rl_new($opts);
try {
    $lv = $m2->lock('res', 1000);
} catch (RedLock\QuorumException $e) {
    $lv = null;
}
echo "acquired while H valid: ", $lv ? ($lh->isValid() ? 'YES (two holders)' : 'after H') : 'no', "\n";
foreach ([1, 2] as $i) echo "node ", $i + 1, " voting: ", var_export($m2->stats()['nodes'][rl_nodes()[$i]]['voting'], true), "\n";
if ($lv) $lv->release();
$lh->release();
rl_del($p . 'res', $p . 'w', $p . 'solo');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
acquired while H valid: no
node 2 voting: false
node 3 voting: false
