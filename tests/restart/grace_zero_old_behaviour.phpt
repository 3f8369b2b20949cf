--TEST--
Restarted nodes: restart_grace => 0 turns the check off (the old behaviour): a node restarted empty counts at once
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('zero');
$a = rl_new(['prefix' => $p, 'restart_grace' => 0]);
$b = rl_new(['prefix' => $p, 'restart_grace' => 0, 'retry_count' => 0]);
$la = rt_lock_on_three($a, $p, 'r', 10000);
rt_restart_empty(1);
$lb = $b->lock('r', 10000);
echo "B acquired while A valid: ", $lb && $la->isValid() ? 'yes' : 'no', "\n";
echo "node 1 voting: ", var_export($b->stats()['nodes'][rl_nodes()[0]]['voting'], true), "\n";
// and no maxttl key is written with the check off
echo "maxttl keys: ", rl_count_keys($p . "\0redlock:maxttl"), "\n";
rl_del($p . 'r');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
B acquired while A valid: yes
node 1 voting: true
maxttl keys: 0
