--TEST--
fork(): in the child a parent's lock reports isValid() false and remaining() 0; the parent's view is unchanged
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('fork_child_valid');
$l = $rl->lock($res, 10000);
$f = sys_get_temp_dir() . "/rl-fork-valid-$res";
$pid = pcntl_fork();
if ($pid === 0) {
    file_put_contents($f, json_encode(['isValid' => $l->isValid(), 'remaining' => $l->remaining(),
                                       'extend' => $l->extend(10000)]));
    exit(0);
}
pcntl_waitpid($pid, $status);
echo file_get_contents($f), "\n";
unlink($f);
echo "parent: isValid ", var_export($l->isValid(), true), ", remaining > 9000: ", var_export($l->remaining() > 9000, true), "\n";
var_dump($l->release());
rl_del($res);
?>
--EXPECT--
{"isValid":false,"remaining":0,"extend":false}
parent: isValid true, remaining > 9000: true
bool(true)
