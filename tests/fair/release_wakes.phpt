--TEST--
Fair waiting: a key released by lockAll() or by its last reader wakes its first fair waiter by message, as release() does, not by the waiter's retry timer
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
// the waiter's timer: what it would wait for without a message (a fair
// waiter attempts at least every ttl/2: ttl 4x the delay keeps the delay)
$delay = (int) rl_slack(4000);
$opts = ['wait' => 4 * $delay, 'fair' => true, 'retry_delay' => $delay, 'retry_jitter' => 0];
$cases = [
    'lockAll' => fn ($res) => $rl->lockAll([$res, $res . '-other'], 4 * $delay),
    'last reader' => fn ($res) => $rl->lock($res, 4 * $delay, ['shared' => true]),
    'release' => fn ($res) => $rl->lock($res, 4 * $delay),
];
foreach ($cases as $name => $take) {
    $res = rl_name('relwake');
    $log = sys_get_temp_dir() . '/rl-fair-relwake-' . getmypid();
    @unlink($log);
    $held = $take($res);
    $pid = fair_waiter('A', $res, 4 * $delay, $opts, $log);
    $queued = fair_wait_queued($res, 1);
    usleep(50000); // (past its attempt: listening)
    $t0 = hrtime(true);
    $released = $held->release();
    if (fair_reap([$pid], 4 * $delay + rl_slack(3000)) > 0) echo "$name: waiter killed\n";
    $row = fair_log($log)[0] ?? null;
    $ms = $row ? ((int) $row[4] - $t0) / 1e6 : INF;
    echo "$name: queued ", var_export($queued, true), ", released ", var_export($released, true),
        ", waiter ", $row[1] ?? 'none', ", woken before its timer: ", var_export($ms < $delay / 2, true),
        $ms < $delay / 2 ? '' : sprintf(' (%.0f ms after the release, timer %d ms)', $ms, $delay),
        ", wake-ups >= 1: ", var_export(($row[3] ?? 0) >= 1, true), "\n";
    echo "$name: queue left: ", fair_queued($res), "\n";
    @unlink($log);
}
?>
--EXPECT--
lockAll: queued true, released true, waiter got, woken before its timer: true, wake-ups >= 1: true
lockAll: queue left: 0
last reader: queued true, released true, waiter got, woken before its timer: true, wake-ups >= 1: true
last reader: queue left: 0
release: queued true, released true, waiter got, woken before its timer: true, wake-ups >= 1: true
release: queue left: 0
