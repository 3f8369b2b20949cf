--TEST--
Fair waiting: a waiter killed in the queue does not block the next beyond its lock() ttl; waiters killed at every step (before queueing, queued, first in line, holding) never leave the queue stuck: every survivor gets the lock, in order, and no entry is left
--EXTENSIONS--
redlock
pcntl
posix
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/fair.inc';
$rl = rl_new();

// 1. the first in line (ttl 1500) is killed while queued: the next gets the lock once its entry
//    lapsed (at most 1500 ms after its last attempt) and its own timer (retry_delay 100 + jitter 50)
$res = rl_name('killed');
$log = sys_get_temp_dir() . '/rl-fair-killed-' . getmypid();
@unlink($log);
$held = $rl->lock($res, 30000);
$ttlA = (int) rl_slack(1500);
$a = fair_waiter('A', $res, $ttlA, ['wait' => (int) rl_slack(20000), 'fair' => true], $log);
if (!fair_wait_queued($res, 1)) echo "A never queued\n";
$b = fair_waiter('B', $res, 10000, ['wait' => (int) rl_slack(20000), 'fair' => true, 'retry_delay' => 100, 'retry_jitter' => 50], $log);
if (!fair_wait_queued($res, 2)) echo "B never queued\n";
posix_kill($a, SIGKILL);
pcntl_waitpid($a, $st);
$t0 = hrtime(true);
$held->release();
fair_reap([$b], rl_slack(20000));
$rows = fair_log($log);
$ms = isset($rows[0][4]) ? ((int) $rows[0][4] - $t0) / 1e6 : -1;
echo "after the kill: ", implode(',', array_map(fn ($r) => $r[0] . ':' . $r[1], $rows)), "\n";
echo "B within A's ttl + its timer: ", var_export($ms >= 0 && $ms <= $ttlA + rl_slack(150 + 500), true), "\n";
if (!($ms >= 0 && $ms <= $ttlA + rl_slack(650))) echo "B after $ms ms\n";
@unlink($log);
fair_del($res);

// 2. rounds of 6 waiters (ttl 1000), two of them killed at a random step each round
$stuck = $disorder = $left = $unserved = 0;
for ($round = 0; $round < 4; $round++) {
    $res = rl_name("killed$round");
    $log = sys_get_temp_dir() . "/rl-fair-killed-" . getmypid() . "-$round";
    @unlink($log);
    $held = $rl->lock($res, 30000);
    $victims = array_rand(array_flip(range(0, 5)), 2);
    $step = $round % 4; // 0 before queueing, 1 queued, 2 first in line, 3 holding
    $pids = [];
    for ($i = 0; $i < 6; $i++) {
        $pids[$i] = fair_waiter((string) $i, $res, (int) rl_slack(1000), ['wait' => (int) rl_slack(15000), 'fair' => true,
            'retry_delay' => 100, 'retry_jitter' => 50], $log, 30);
        if ($step === 0 && in_array($i, $victims, true)) {
            posix_kill($pids[$i], SIGKILL); // (in its lock() call or before it)
            continue;
        }
        usleep(20000);
        if (!fair_wait_queued($res, $i + 1 - ($step === 0 ? count(array_filter($victims, fn ($v) => $v < $i)) : 0))) $stuck++;
    }
    if ($step === 1) foreach ($victims as $v) posix_kill($pids[$v], SIGKILL);
    if ($step === 2) posix_kill($pids[0], SIGKILL); // the first in line, just before the release
    $held->release();
    if ($step === 3) {
        // the first holder dies holding (its lock expires by its ttl, 1000 ms)
        for ($t = 0; $t < rl_slack(400) && !str_contains((string) @file_get_contents($log), "\n"); $t++) usleep(5000);
        posix_kill($pids[0], SIGKILL);
    }
    $dead = $step === 0 || $step === 1 ? $victims : [0];
    if (fair_reap(array_values($pids), rl_slack(15000)) > ($step === 0 || $step === 1 ? 2 : 1)) $stuck++;
    $got = array_values(array_map(fn ($r) => (int) $r[0], array_filter(fair_log($log), fn ($r) => $r[1] === 'got')));
    $want = array_values(array_diff(range(0, 5), $step === 3 ? [] : $dead));
    if ($got !== $want) {
        $disorder++;
        echo "round $round (step $step, killed ", implode(',', $dead), "): ", implode(',', $got), "\n";
    }
    // (a killed waiter's entry lapses 1000 ms after its last attempt)
    $left += fair_left($res, 1000 + 1000);
    @unlink($log);
    fair_del($res);
}
echo "stuck: $stuck, out of order or unserved: $disorder, entries left: $left\n";
?>
--EXPECT--
after the kill: B:got
B within A's ttl + its timer: true
stuck: 0, out of order or unserved: 0, entries left: 0
