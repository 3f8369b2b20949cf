--TEST--
Restarted nodes: where an ACL refuses INFO, the node votes unchecked and stats() says "restart check: no INFO"
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('noinfo');
$user = 'rtnoinfo' . getmypid();
foreach (rl_nodes() as $addr) {
    $r = rl_redis($addr);
    $r->cmd('ACL', 'SETUSER', $user, 'on', '>pw-' . $user, '~*', '&*', '+@all', '-info');
    $r->close();
}
$nodes = array_map(fn($a) => 'redis://' . $user . ':pw-' . $user . '@' . $a, rl_nodes());
$rl = new RedLock($nodes, ['prefix' => $p, 'restart_grace' => 'auto', 'retry_count' => 0]);
$l = $rl->lock('r', 5000);
echo "lock: ", $l ? 'acquired on ' . rl_count_value($p . 'r', $l->token) : 'refused', "\n";
$l->release();
rt_restart_empty(1); // (the ACL user is gone on node 1: it refuses AUTH now)
$r = rl_redis(rl_nodes()[0]);
$r->cmd('ACL', 'SETUSER', $user, 'on', '>pw-' . $user, '~*', '&*', '+@all', '-info');
$r->close();
$l = $rl->lock('r', 5000);
// (node 1's SET may land a moment after lock() returned: a quorum is what lock() promises)
echo "after node 1 restarted: ", $l ? 'acquired on a quorum: ' . var_export(rl_count_value($p . 'r', $l->token) >= 3, true) : 'refused', "\n";
foreach ($rl->stats()['nodes'] as $name => $n) {
    if (!in_array($name, rl_nodes(), true)) continue;
    echo var_export($n['voting'], true), ' ', var_export($n['not_voting_why'], true), "\n";
}
if ($l) $l->release();
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
foreach (rl_nodes() as $addr) {
    try { $r = rl_redis($addr); foreach ($r->cmd('ACL', 'USERS') as $u) if (str_starts_with($u, 'rtnoinfo')) $r->cmd('ACL', 'DELUSER', $u); $r->close(); } catch (Throwable $e) {}
}
rl_restore_nodes();
?>
--EXPECT--
lock: acquired on 5
after node 1 restarted: acquired on a quorum: true
true 'restart check: no INFO'
true 'restart check: no INFO'
true 'restart check: no INFO'
true 'restart check: no INFO'
true 'restart check: no INFO'
