--TEST--
wait: when the holder crashes (no release, no message), the waiter takes the lock on its retry timer after the TTL expires
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
$res = rl_name('crash');
$h = wait_holder($res, 50, 600, true);   // TTL 600 ms, gone after 50 ms
$t0 = hrtime(true);
$l = rl_new()->lock($res, 10000, ['wait' => 3000, 'retry_delay' => 100, 'retry_jitter' => 0]);
$ms = rl_ms($t0);
[, $what] = wait_holder_done($h);
echo "holder $what\n";
var_dump($l instanceof RedLock\Lock);
// the key expired about 550 ms from now; the timer (100 ms) catches it soon after
echo "after the expiry, within a timer period: ", ($ms >= 450 && $ms < rl_slack(900)) ? 'yes' : "no ($ms ms)", "\n";
echo "ours on a quorum: ", rl_count_value($res, $l->token) >= 3 ? 'yes' : 'no', "\n";
$l->release();
rl_del($res);
?>
--EXPECT--
holder crashed
bool(true)
after the expiry, within a timer period: yes
ours on a quorum: yes
