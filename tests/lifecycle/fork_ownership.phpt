--TEST--
fork(): a child can neither release nor auto-release its parent's lock, and opens its own connections
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('fork_parent');
$childRes = rl_name('fork_child');
$l = $rl->lock($res, 10000);
$pid = pcntl_fork();
if ($pid === 0) {
    $ok = $l->release();
    $c = $rl->lock($childRes, 10000);
    $n = $c ? rl_count_value($childRes, $c->token) : -1;
    $c?->release();
    file_put_contents(sys_get_temp_dir() . "/rl-fork-$res", json_encode(['release' => $ok, 'child lock on' => $n]));
    exit(0);   // request end in the child: the parent's lock must survive
}
pcntl_waitpid($pid, $status);
$f = sys_get_temp_dir() . "/rl-fork-$res";
echo file_get_contents($f), "\n";
unlink($f);
echo "parent's token still on: ", rl_count_value($res, $l->token), "\n";
var_dump($l->isValid(), $l->release());
echo "keys: ", rl_count_keys($res) + rl_count_keys($childRes), "\n";
rl_del($res, $childRes);
?>
--EXPECT--
{"release":false,"child lock on":5}
parent's token still on: 5
bool(true)
bool(true)
keys: 0
