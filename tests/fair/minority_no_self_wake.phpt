--TEST--
Fair waiting: the first in line, whose attempts win only the minority of nodes where the holder's key is gone, is not woken by the cleanup of its own attempts (at most the holder's release wakes it)
--EXTENSIONS--
redlock
pcntl
posix
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/fair.inc';
// The holder keeps a majority (nodes 1-3); on nodes 4 and 5 its key is gone (as when its SET
// landed on three nodes only, or a release raced a waiter's attempt). The fair waiter is first
// in line everywhere, so each of its attempts takes nodes 4 and 5, loses the majority, and its
// cleanup releases them. That cleanup must not wake the waiter itself: it would try again at
// once and lose again, for as long as the holder holds (a loop of wake-ups a few ms apart).
$rl = rl_new();
$res = rl_name('selfwake');
$log = sys_get_temp_dir() . '/rl-fair-selfwake-' . getmypid();
@unlink($log);
$held = $rl->lock($res, 30000);
$pid = fair_waiter('W', $res, 10000, ['wait' => (int) rl_slack(20000), 'fair' => true, 'retry_delay' => 50, 'retry_jitter' => 10], $log);
if (!fair_wait_queued($res, 1)) echo "the waiter never queued\n";
foreach ([4, 5] as $i) {
    $r = rl_redis(rl_nodes()[$i - 1]);
    echo "key gone from node $i: ", $r->cmd('DEL', $res), "\n";
    $r->close();
}
// the waiter's timer (50-60 ms) makes several attempts meanwhile, each won on nodes 4 and 5
usleep((int) rl_slack(600) * 1000);
$held->release();
if (fair_reap([$pid], rl_slack(20000)) > 0) echo "waiter killed\n";
$rows = fair_log($log);
echo "waiter: ", $rows[0][1] ?? 'no line', "\n";
$wakeups = (int) ($rows[0][3] ?? -1);
// the release wakes it once (none when its timer's attempt came first, right after the
// release); one more may come from a message of a node whose release ran after the waiter's
// attempt there. Without the rule: one per attempt's cleanup, hundreds (216 measured).
echo "wake-ups: ", $wakeups >= 0 && $wakeups <= 2 ? 'at most 2' : $wakeups, "\n";
// it did try meanwhile (the case this test is about): at least a few timer attempts
$attempts = (int) ($rows[0][2] ?? 0);
echo "attempts while the holder held: ", $attempts >= 5 ? 'several' : $attempts, "\n";
@unlink($log);
fair_del($res);
?>
--EXPECT--
key gone from node 4: 1
key gone from node 5: 1
waiter: got
wake-ups: at most 2
attempts while the holder held: several
