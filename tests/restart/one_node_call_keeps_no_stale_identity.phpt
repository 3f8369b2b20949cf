--TEST--
Restarted nodes: a one-node RedLock that reconnects to a node restarted empty learns its new identity, so a RedLock of three nodes in the same worker does not count it (no second holder while the first holds on 2 of 3)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('onenode');
$three = array_slice(rl_nodes(), 0, 3);
$opts = ['prefix' => $p, 'restart_grace' => 'auto', 'retry_count' => 0];
// H holds 'res' for 30 s on nodes 1 and 2: its SET never reached node 3
rl_set_on([3], $p . 'res', 'foreign', 10000);
$h = new RedLock($three, $opts);
$lh = $h->lock('res', 30000);
echo "H holds on 2 of 3: ", $lh && rl_count_value($p . 'res', $lh->token) === 2 ? 'yes' : 'no', "\n";
rl_redis(rl_nodes()[2])->cmd('DEL', $p . 'res');
// node 2 restarts empty; the worker's pooled connection to it knew the old server
rt_restart_empty(2);
// a one-node RedLock on node 2 reconnects first
$one = new RedLock([rl_nodes()[1]], $opts);
echo "one-node isLocked: ", var_export($one->isLocked('x'), true), "\n";
// then a RedLock of the three nodes: node 2 is a restarted node, out for H's 30 s
$v = new RedLock($three, $opts);
try {
    $lv = $v->lock('res', 5000);
} catch (RedLock\QuorumException $e) {
    $lv = null;
    echo "quorum: ", $e->getMessage(), "\n";
}
echo "V acquired while H valid: ", $lv ? ($lh->isValid() ? 'YES (two holders)' : 'after H') : 'no', "\n";
$n2 = $v->stats()['nodes'][rl_nodes()[1]];
echo "node 2 voting: ", var_export($n2['voting'], true), "\n";
echo "why: ", preg_replace('/\d+/', 'N', (string) $n2['not_voting_why']), "\n";
if ($lv) $lv->release();
$lh->release();
rl_del($p . 'res');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
H holds on 2 of 3: yes
one-node isLocked: false
V acquired while H valid: no
node 2 voting: false
why: restarted N s ago, votes in N s
