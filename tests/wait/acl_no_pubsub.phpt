--TEST--
wait: an ACL user without pub/sub: releases still work (the script's pub/sub goes through pcall), SUBSCRIBE is refused, and a wait falls back to its retry timer
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
$user = 'rlnopub' . getmypid();
foreach (rl_nodes() as $addr) {
    $r = rl_redis($addr);
    $r->cmd('ACL', 'SETUSER', $user, 'on', '>nopub-secret', '~*', '+@all', '-@pubsub', 'resetchannels');
    $r->close();
}
$nodes = array_map(fn($a) => "redis://$user:nopub-secret@$a", rl_nodes());
$res = rl_name('acl_nopub');
$f = sys_get_temp_dir() . '/rl-acl-' . getmypid();
@unlink($f);
$pid = pcntl_fork();
if ($pid === 0) {
    $l = (new RedLock($nodes, ['retry_count' => 5, 'retry_delay' => 20,
        'connect_timeout' => (int) rl_slack(100), 'timeout' => (int) rl_slack(100)]))->lock($res, 10000);
    rl_put_atomic("$f.up", $l ? 'held' : 'failed');
    // release half-way between two of the waiter's timer attempts (from the time it began
    // waiting, which it writes to $f.t0): an attempt taken right at the release can then
    // only be a wake-up
    for ($i = 0; $i < 1000 && !file_exists("$f.t0"); $i++) usleep(10000);
    $t0 = (int) @file_get_contents("$f.t0");
    while (hrtime(true) < $t0 + (int) (rl_slack(350) * 1e6)) usleep(1000);
    $ok = $l->release();
    file_put_contents($f, hrtime(true) . ' ' . ($ok ? 'released' : 'lost'));
    exit(0);
}
for ($i = 0; $i < 500 && !file_exists("$f.up"); $i++) usleep(10000);
echo "holder: ", file_get_contents("$f.up"), "\n";
$t0 = hrtime(true);
rl_put_atomic("$f.t0", (string) $t0);
$l = (new RedLock($nodes))->lock($res, 10000, ['wait' => (int) rl_slack(5000), 'retry_delay' => (int) rl_slack(700), 'retry_jitter' => 0]);
$t = hrtime(true);
pcntl_waitpid($pid, $st);
[$rel, $what] = explode(' ', file_get_contents($f));
unlink($f);
unlink("$f.up");
@unlink("$f.t0");
echo "holder $what\n";
echo "acquired: ", $l ? 'yes' : 'no', "\n";
// no message can come: the next attempt is the timer's (700 ms after the one before, the
// release half-way between two: about 350 ms before it)
echo "on the timer, not at the release: ", ($t - $rel) / 1e6 > rl_slack(100) ? 'yes' : 'no (' . ($t - $rel) / 1e6 . ' ms)', "\n";
var_dump($l->release());
echo "keys left: ", rl_count_keys($res), "\n";
foreach (rl_nodes() as $addr) {
    $r = rl_redis($addr);
    $r->cmd('ACL', 'DELUSER', $user);
    $r->close();
}
?>
--EXPECT--
holder: held
holder released
acquired: yes
on the timer, not at the release: yes
bool(true)
keys left: 0
