--TEST--
Restarted nodes: a brand-new cluster (every node just started, no maxttl key older than a node) votes at once, also after it was used with a long TTL
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('fresh');
for ($i = 1; $i <= 5; $i++) {
    rt_restart_empty($i);
}
$code = '
    $rl = new RedLock(rl_nodes(), ["prefix" => ' . var_export($p, true) . ', "restart_grace" => "auto", "retry_count" => 0]);
    $l = $rl->lock("r", 60000);
    echo "lock: ", $l ? "acquired on " . rl_count_value(' . var_export($p, true) . ' . "r", $l->token) : "refused", "\n";
    $v = array_map(fn($n) => var_export($n["voting"], true) . "/" . var_export($n["not_voting_why"], true), $rl->stats()["nodes"]);
    echo "voting: ", implode(" ", array_unique($v)), "\n";
    if ($l) $l->release();
';
// no node has the key: votes at once
[$rc, $out] = rl_php_child($code);
echo $out, "\n";
// the key exists now (60 s asked for) but is younger than every node: still at once
usleep(1200000);
[$rc, $out] = rl_php_child($code);
echo $out, "\n";
rl_del($p . 'r');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
lock: acquired on 5
voting: true/NULL
lock: acquired on 5
voting: true/NULL
