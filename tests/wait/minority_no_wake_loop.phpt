--TEST--
Waiting without fair: waiters whose attempts win only the minority of nodes where the holder's key is gone are not woken again and again by their cleanups (one cleanup wakes one waiter; the cleanup of that waiter's attempt wakes nobody)
--EXTENSIONS--
redlock
pcntl
posix
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../fair/fair.inc';
// The holder keeps a majority (nodes 1-3); on nodes 4 and 5 its key is gone (a SET that reached
// a bare quorum, a node restarted empty). Each waiter's timer attempt takes nodes 4 and 5, loses,
// and its cleanup frees them again. Before the cleanup's mark (rl.h RL_ID_CLEANUP) that cleanup
// woke a waiter, whose attempt did the same, and so on: the waiters took turns a few ms apart
// for as long as the holder held (about 200 wake-ups in 600 ms for one waiter).
$rl = rl_new();
$res = rl_name('wakeloop');
$log = sys_get_temp_dir() . '/rl-wait-wakeloop-' . getmypid();
@unlink($log);
$held = $rl->lock($res, 30000);
$pids = [];
foreach (['A', 'B'] as $name) {
    $pids[] = fair_waiter($name, $res, 10000, ['wait' => (int) rl_slack(20000), 'retry_delay' => 50, 'retry_jitter' => 10], $log);
}
usleep(100000); // (both waiting: their first attempts met the holder on every node)
foreach ([4, 5] as $i) {
    $r = rl_redis(rl_nodes()[$i - 1]);
    echo "key gone from node $i: ", $r->cmd('DEL', $res), "\n";
    $r->close();
}
usleep((int) rl_slack(600) * 1000);
$held->release();
if (fair_reap($pids, rl_slack(20000)) > 0) echo "waiters killed\n";
$rows = fair_log($log);
echo "served: ", implode(',', array_map(fn ($r) => $r[1], $rows)), "\n";
// per waiter: attempts (less the parent's one, inherited by the fork), wake-ups; the attempts
// its timer made are the rest (two more at the start: the first and the one after subscribing)
$wakeups = $timer = 0;
foreach ($rows as $r) {
    $att = (int) $r[2] - 1;
    $wakeups += (int) $r[3];
    $timer += $att - (int) $r[3] - 2;
}
// every cleanup that wakes anyone follows a timer attempt and wakes one shard (both waiters when
// they drew the same one of the 1024: two); the releases (the holder's, then the first winner's)
// wake one each, and a split of the two waiters' attempts can add one or two. Measured: 15-19
// wake-ups for 20-23 timer attempts; 228 wake-ups for 4 before the mark.
echo "timer attempts while the holder held: ", $timer >= 5 ? 'several' : $timer, "\n";
echo "wake-ups at most two per timer attempt (and the releases'): ", $wakeups <= 2 * $timer + 4 ? 'yes' : "no: $wakeups wake-ups, $timer timer attempts", "\n";
@unlink($log);
rl_del($res, "$res\0w");
?>
--EXPECT--
key gone from node 4: 1
key gone from node 5: 1
served: got,got
timer attempts while the holder held: several
wake-ups at most two per timer attempt (and the releases'): yes
