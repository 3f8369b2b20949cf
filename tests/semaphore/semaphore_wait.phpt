--TEST--
semaphore: a waiter is woken when a permit is released (not at its retry timer); auto_extend keeps a permit past its ttl; on_lost fires when a permit's validity ends while held
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../lock_all/multi.inc';
$r = rl_name('semw');
$file = sys_get_temp_dir() . '/rl-semw-' . getmypid();
@unlink($file); @unlink("$file.up");
$pid = pcntl_fork();
if ($pid === 0) {
    $rl = rl_new(['retry_count' => 5, 'retry_delay' => 20]);
    $a = $rl->semaphore($r, 2, 20000);
    $b = $rl->semaphore($r, 2, 20000);
    rl_put_atomic("$file.up", $a && $b ? 'held' : 'failed');
    usleep(300000);
    $ok = $b->release();
    rl_put_atomic($file, hrtime(true) . ' ' . ($ok ? 'released' : 'lost'));
    usleep(300000);
    $a->release();
    exit(0);
}
for ($i = 0; $i < (int) (rl_slack(5000) / 10) && !file_exists("$file.up"); $i++) usleep(10000);
echo "holder: ", @file_get_contents("$file.up"), "\n";
$rl = rl_new();
$opts = ['wait' => (int) rl_slack(6000), 'retry_delay' => (int) rl_slack(3000), 'retry_jitter' => 0];
$p = $rl->semaphore($r, 2, 10000, $opts);
$t = hrtime(true);
pcntl_waitpid($pid, $st);
[$rel, $how] = explode(' ', (string) @file_get_contents($file)) + [1 => ''];
@unlink($file); @unlink("$file.up");
$after = ($t - (int) $rel) / 1e6;
echo "waiter: ", $p ? 'got a permit' : 'null', ", holder $how, within 1000 ms of the release: ",
    $after < rl_slack(1000) ? 'yes' : "no ($after ms)", "\n";
$p->release();
// the watchdog extends a permit
$w = $rl->semaphore($r, 2, 600, ['auto_extend' => true]);
usleep(1800000);
echo "auto_extend after 3 ttls: held ", var_export($w->isHeld(), true), ", valid ", var_export($w->isValid(), true), "\n";
echo "release: ", var_export($w->release(), true), "\n";
// on_lost: the validity ends while held
$l = $rl->semaphore($r, 2, 300, ['on_lost' => 'throw']);
$t = hrtime(true);
try {
    while (rl_ms($t) < rl_slack(5000)) { usleep(1000); }
    echo "on_lost: no exception\n";
} catch (RedLock\LockLostException $e) {
    echo "on_lost: thrown after the validity: ", rl_ms($t) >= 250 ? 'yes' : 'no', "\n";
}
rl_del("$r\0pL", "$r\0p0", "$r\0p1");
?>
--EXPECT--
holder: held
waiter: got a permit, holder released, within 1000 ms of the release: yes
auto_extend after 3 ttls: held true, valid true
release: true
on_lost: thrown after the validity: yes
