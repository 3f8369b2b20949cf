--TEST--
on_lost and fork(): a forked child gets nothing for its parent's lock; the parent does
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('lost-fork');
$out = sys_get_temp_dir() . '/rl-lost-fork-' . getmypid();
@unlink($out);
$ttl = (int) rl_slack(300); // fork() must come before the validity ends
$l = $rl->lock($res, $ttl, ['on_lost' => 'throw']);
$l2 = $rl->lock($res . ':cb', $ttl, ['on_lost' => function () use ($out) {
    if (getmypid() !== $GLOBALS['parent']) file_put_contents($out . '.cb', 'called in child');
}]);
$parent = getmypid();
$pid = pcntl_fork();
if ($pid === 0) {
    $t0 = hrtime(true);
    try {
        while (rl_ms($t0) < $ttl + 500) {
        }
        file_put_contents($out, 'child: nothing');
    } catch (Throwable $e) {
        file_put_contents($out, 'child: ' . get_class($e));
    }
    exit(0);
}
$t0 = hrtime(true);
try {
    while (rl_ms($t0) < $ttl + 3000) {
    }
    echo "parent: nothing\n";
} catch (RedLock\LockLostException $e) {
    echo "parent: LockLostException\n";
}
pcntl_waitpid($pid, $status);
echo @file_get_contents($out), "\n";
echo file_exists($out . '.cb') ? "callable ran in the child\n" : "callable not in the child\n";
@unlink($out);
@unlink($out . '.cb');
rl_del($res, $res . ':cb');
?>
--EXPECT--
parent: LockLostException
child: nothing
callable not in the child
