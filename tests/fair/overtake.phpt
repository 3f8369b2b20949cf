--TEST--
Fair waiting: while fair waiters queue, a lock() of the free key does not overtake them, with or without fair, with or without wait, nor does lockAll() or a shared lock(); the queue is served first, then the newcomer that waited
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
$res = rl_name('overtake');
$log = sys_get_temp_dir() . '/rl-fair-overtake-' . getmypid();
@unlink($log);
$held = $rl->lock($res, 30000);
$pids = [];
foreach (['A', 'B'] as $i => $name) {
    $pids[$name] = fair_waiter($name, $res, 20000, ['wait' => (int) rl_slack(20000), 'fair' => true], $log);
    if (!fair_wait_queued($res, $i + 1)) echo "$name never queued\n";
}
// both stopped: the key is free after this release, and only the queue can keep a newcomer out
foreach ($pids as $pid) posix_kill($pid, SIGSTOP);
var_dump($held->release());
$other = rl_new(['retry_count' => 0]);
echo "plain lock(): ", var_export($other->lock($res, 5000), true), "\n";
echo "fair lock() without wait: ", var_export($other->lock($res, 5000, ['fair' => true]), true), "\n";
echo "lock() with wait 300 ms: ", var_export($other->lock($res, 5000, ['wait' => 300, 'retry_delay' => 50]), true), "\n";
echo "lockAll(): ", var_export($other->lockAll([$res, rl_name('overtake2')], 5000), true), "\n";
echo "shared lock(): ", var_export($other->lock($res, 5000, ['shared' => true]), true), "\n";
echo "isLocked(): ", var_export($other->isLocked($res), true), "\n";
echo "queued: ", fair_queued($res), "\n";
// a newcomer that waits (without fair) is served after the queue
$pids['C'] = fair_waiter('C', $res, 20000, ['wait' => (int) rl_slack(20000), 'retry_delay' => 50], $log);
usleep(100000);
foreach (['A', 'B'] as $name) posix_kill($pids[$name], SIGCONT);
if (fair_reap(array_values($pids), rl_slack(20000)) > 0) echo "waiters killed\n";
echo "order: ", implode(',', array_map(fn ($r) => $r[0] . ':' . $r[1], fair_log($log))), "\n";
echo "queued after: ", fair_queued($res), "\n";
@unlink($log);
fair_del($res);
?>
--EXPECT--
bool(true)
plain lock(): NULL
fair lock() without wait: NULL
lock() with wait 300 ms: NULL
lockAll(): NULL
shared lock(): NULL
isLocked(): false
queued: 2
order: A:got,B:got,C:got
queued after: 0
