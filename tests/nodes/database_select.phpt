--TEST--
database: the key lands in the selected database (URI /db and 'database'); a refused SELECT is a node failure
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$p = array_map('rl_port', [1, 2, 3, 4, 5]);
$rl = new RedLock([
    "redis://127.0.0.1:$p[0]/3",
    ['host' => '127.0.0.1', 'port' => $p[1], 'database' => 3],
    "redis://127.0.0.1:$p[2]/3",
    "127.0.0.1:$p[3]",
    "redis://127.0.0.1:$p[4]/0",
], ['retry_count' => 0]);
echo implode(',', array_column($rl->nodes(), 'database')), "\n";
$res = rl_name('database_select');
$l = $rl->lock($res, 5000);
$db3 = rl_values($res, 3);
$db0 = rl_values($res, 0);
echo "db 3: ", implode(',', array_map(fn($v) => $v === $l->token ? 'ours' : '-', $db3)), "\n";
echo "db 0: ", implode(',', array_map(fn($v) => $v === $l->token ? 'ours' : '-', $db0)), "\n";
var_dump($rl->isLocked($res));
var_dump($l->release());
echo "keys left: ", rl_count_keys($res, 3) + rl_count_keys($res, 0), "\n";

// database 99 does not exist (16 databases): SELECT fails on 3 nodes -> no quorum
$bad = new RedLock([
    "redis://127.0.0.1:$p[0]/99", "redis://127.0.0.1:$p[1]/99", "redis://127.0.0.1:$p[2]/99",
    "127.0.0.1:$p[3]", "127.0.0.1:$p[4]",
], ['retry_count' => 0]);
try {
    $bad->lock($res, 5000);
    echo "no exception\n";
} catch (RedLock\QuorumException $e) {
    echo "QuorumException, names node 1: ", str_contains($e->getMessage(), "127.0.0.1:$p[0]") ? 'yes' : 'no', "\n";
}
echo "keys left: ", rl_count_keys($res), "\n";
rl_del($res);
?>
--EXPECT--
3,3,3,0,0
db 3: ours,ours,ours,-,-
db 0: -,-,-,ours,ours
bool(true)
bool(true)
keys left: 0
QuorumException, names node 1: yes
keys left: 0
