--TEST--
wait: after fork() the child opens its own subscriber connections and wakes on release; the parent's keep working
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
$res = rl_name('fork_wait');
// a wake-up is judged at 500 ms, a sixth of the retry timer (both scaled for slow builds)
$opts = ['wait' => (int) rl_slack(5000), 'retry_delay' => (int) rl_slack(3000), 'retry_jitter' => 0];
$rl = rl_new();
// the parent waits once: its subscriber connections are open and pooled
$h = wait_holder($res, 150);
$l = $rl->lock($res, 10000, $opts);
wait_holder_done($h);
$l->release();

// the child waits on a lock the parent holds, with the inherited pool
$held = $rl->lock($res, 10000);
$f = sys_get_temp_dir() . '/rl-forkwait-' . getmypid();
$pid = pcntl_fork();
if ($pid === 0) {
    $c = $rl->lock($res, 10000, $opts);
    file_put_contents($f, hrtime(true) . ' ' . ($c && rl_count_value($res, $c->token) >= 3 ? 'a quorum' : 'none'));
    $c?->release();
    exit(0);
}
usleep(300000);
$held->release();
$t = hrtime(true);
pcntl_waitpid($pid, $st);
[$tc, $on] = explode(' ', file_get_contents($f), 2);
unlink($f);
echo "child acquired on $on, within 500 ms of the release: ", ($tc - $t) / 1e6 < rl_slack(500) ? 'yes' : 'no (' . round(($tc - $t) / 1e6) . ' ms)', "\n";

// the parent's subscriber connections still work
$h = wait_holder($res, 200);
$l = $rl->lock($res, 10000, $opts);
$t = hrtime(true);
[$rel] = wait_holder_done($h);
echo "parent again: ", $l ? 'acquired' : 'not acquired', ", fast: ", ($t - $rel) / 1e6 < rl_slack(500) ? 'yes' : 'no (' . round(($t - $rel) / 1e6) . ' ms)', "\n";
$l->release();
rl_del($res);
?>
--EXPECT--
child acquired on a quorum, within 500 ms of the release: yes
parent again: acquired, fast: yes
