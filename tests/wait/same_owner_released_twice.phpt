--TEST--
wait: a waiter that found the lock taken again by the same owner (same token) after a release is woken by that owner's next release too, not only at its retry timer
--EXTENSIONS--
redlock
pcntl
posix
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
$res = rl_name('twice');
$token = 'owner-' . bin2hex(random_bytes(12)); // a framework owner's token: the same at each lock
$retry = (int) rl_slack(6000);                  // the waiter's timer: far beyond what a wake-up takes
$file = sys_get_temp_dir() . '/rl-twice-' . getmypid();
@unlink($file);
$rl = rl_new(['retry_count' => 0]);
$a = $rl->lock($res, 30000, ['token' => $token]);
echo "held: ", var_export($a instanceof RedLock\Lock, true), "\n";

$pid = pcntl_fork();
if ($pid === 0) {
    $w = rl_new(['connect_timeout' => (int) rl_slack(200), 'timeout' => (int) rl_slack(200)]);
    $l = $w->lock($res, 10000, ['wait' => 3 * $retry, 'retry_delay' => $retry, 'retry_jitter' => 0]);
    file_put_contents($file, hrtime(true) . ' ' . ($l ? 'got' : 'none'));
    $l?->release();
    exit(0);
}
// the waiter is subscribed on every node
$subscribed = 0;
for ($i = 0; $i < 300 && $subscribed < count(rl_nodes()); $i++) {
    usleep(10000);
    $subscribed = 0;
    foreach (rl_nodes() as $addr) {
        $r = rl_redis($addr);
        $subscribed += ($r->cmd('PUBSUB', 'NUMSUB', "redlock:released:$res")[1] ?? 0) >= 1;
        $r->close();
    }
}
echo "waiter subscribed on every node: ", var_export($subscribed === count(rl_nodes()), true), "\n";
usleep((int) rl_slack(200) * 1000); // its first attempts fail, it sleeps on its subscriptions
// stopped, it reads the first release only once the owner holds the lock again
posix_kill($pid, SIGSTOP);
echo "released: ", var_export($a->release(), true), "\n";
$b = $rl->lock($res, 30000, ['token' => $token]);
echo "the same owner holds it again: ", var_export($b instanceof RedLock\Lock, true), "\n";
posix_kill($pid, SIGCONT);
usleep((int) rl_slack(500) * 1000); // it reads the first release, tries, fails, waits again
$t = hrtime(true);
echo "released again: ", var_export($b->release(), true), "\n";
pcntl_waitpid($pid, $status);
[$at, $what] = explode(' ', (string) @file_get_contents($file)) + ['0', 'nothing'];
@unlink($file);
$after = ((int) $at - $t) / 1e6;
echo "waiter: $what, woken by the second release (not at its {$retry} ms timer): ",
    $after < rl_slack(1500) ? 'yes' : "no ($after ms)", "\n";
rl_del($res);
?>
--EXPECTF--
held: true
waiter subscribed on every node: true
released: true
the same owner holds it again: true
released again: true
waiter: got, woken by the second release (not at its %d ms timer): yes
