--TEST--
auto_extend: a process killed with SIGKILL stops extending; its lock expires by its TTL
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$res = rl_name('sigkill');
$flag = sys_get_temp_dir() . '/rl-wd-kill-' . getmypid();
@unlink($flag);
$pid = pcntl_fork();
if ($pid === 0) {
    // the victim: its own watchdog (a fork child has none until it watches a lock)
    $rl = new RedLock(rl_nodes(), ['retry_count' => 0]);
    $l = $rl->lock($res, 1000, ['auto_extend' => true]);
    rl_put_atomic($flag, $l ? $l->token : 'none');
    sleep(60); // killed long before
    exit(0);
}
$t0 = hrtime(true);
while (!is_file($flag) && rl_ms($t0) < 10000) usleep(10000);
usleep(20000);
$token = (string) @file_get_contents($flag);
@unlink($flag);
echo "victim locked: ", var_export(strlen($token) === 40, true), "\n";
$rl = rl_new(['retry_count' => 0]);
$t0 = hrtime(true);
$got = 0;
while (rl_ms($t0) < 2000) { // two ttls: only its watchdog can keep it
    if ($x = $rl->lock($res, 1000)) { $got++; $x->release(); }
    usleep(100000);
}
echo "held by the victim past its ttl: ", var_export($got === 0, true), "\n";
exec('kill -KILL ' . (int) $pid);
pcntl_waitpid($pid, $status);
echo "killed by SIGKILL: ", var_export(pcntl_wifsignaled($status) && pcntl_wtermsig($status) === 9, true), "\n";
$k = hrtime(true);
$p = rl_pttls($res);
echo "PTTL <= 1000: ", var_export(max($p) <= 1000, true), "\n";
$x = null;
while (!$x && rl_ms($k) < 3000) {
    $x = $rl->lock($res, 1000);
    if (!$x) usleep(20000);
}
$after = rl_ms($k);
echo "acquired after the TTL ran out: ", var_export($x instanceof RedLock\Lock && $after <= 1150, true), ($after <= 1150 ? '' : " ($after ms)"), "\n";
$x?->release();
?>
--EXPECT--
victim locked: true
held by the victim past its ttl: true
killed by SIGKILL: true
PTTL <= 1000: true
acquired after the TTL ran out: true
