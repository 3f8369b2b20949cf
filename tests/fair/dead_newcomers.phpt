--TEST--
Fair waiting: a fair waiter killed while queued (ttl 4 s) keeps a plain lock(), lockAll() and a shared lock() of the free key out only until its own entry lapses, not for the ttl of another waiter (20 s) that raised the queue's keys' expiry and has left: every script that reads the queue prunes its lapsed entries
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
$kinds = ['plain lock()', 'lockAll()', 'shared lock()'];
$log = sys_get_temp_dir() . '/rl-fair-deadnew-' . getmypid();
@unlink($log);
$res = $held = $live = $dead = [];
// per kind, its own key: held here; L (ttl 20 s: its attempts raise the queue keys' PX to 20 s)
// queues first, D (ttl 4 s) behind it
foreach ($kinds as $k => $kind) {
    $res[$k] = rl_name("deadnew$k");
    $held[$k] = $rl->lock($res[$k], 30000);
    $live[$k] = fair_waiter("L$k", $res[$k], 20000, ['wait' => (int) rl_slack(20000), 'fair' => true], $log);
    if (!fair_wait_queued($res[$k], 1)) echo "$kind: L never queued\n";
    $dead[$k] = fair_waiter("D$k", $res[$k], 4000, ['wait' => (int) rl_slack(20000), 'fair' => true], $log);
    if (!fair_wait_queued($res[$k], 2)) echo "$kind: D never queued\n";
}
foreach ($dead as $pid) {
    posix_kill($pid, SIGKILL);
    pcntl_waitpid($pid, $st);
}
// D's entries lapse on each node at the node's time in "\0qx" (4 s after its last attempt there):
// as local times (hrtime, ms), the earliest and the latest node
$lapse = [];
foreach ($kinds as $k => $kind) {
    $lo = INF;
    $hi = -INF;
    foreach (rl_nodes() as $addr) {
        $r = rl_redis($addr);
        $t0 = hrtime(true) / 1e6;
        $t = $r->cmd('TIME');
        $now = (int) $t[0] * 1000 + intdiv((int) $t[1], 1000);
        $q = $r->cmd('ZRANGE', "{$res[$k]}\0q", '0', '-1') ?: [];
        // (D's ticket is after L's)
        $x = count($q) === 2 ? $r->cmd('ZSCORE', "{$res[$k]}\0qx", $q[1]) : null;
        $r->close();
        if (is_string($x)) {
            $lo = min($lo, $t0 + (float) $x - $now);
            $hi = max($hi, $t0 + (float) $x - $now);
        }
    }
    $lapse[$k] = [$lo, $hi];
}
// L wins once the key is released (it is first), leaves the queue, holds 20 ms and releases
foreach ($held as $h) $h->release();
if (fair_reap($live, rl_slack(20000)) > 0) echo "L killed\n";
$ls = array_map(fn ($r) => $r[0] . ':' . $r[1], array_filter(fair_log($log), fn ($r) => $r[0][0] === 'L'));
sort($ls);
echo "L: ", implode(',', $ls), "\n";
// every 20 ms, each kind on its key, until it gets the lock: not before D's entry lapsed on the
// first node (it counts while it lives), at the latest 1 s (scaled) after it lapsed on the last
$other = rl_new(['retry_count' => 0]);
$got = [];
$until = max(array_map(fn ($l) => $l[1], $lapse)) + rl_slack(1000);
while (count($got) < count($kinds) && hrtime(true) / 1e6 < $until) {
    foreach ($kinds as $k => $kind) {
        if (isset($got[$k])) continue;
        $l = match ($k) {
            0 => $other->lock($res[$k], 5000),
            1 => $other->lockAll([$res[$k]], 5000),
            2 => $other->lock($res[$k], 5000, ['shared' => true]),
        };
        if ($l) {
            $got[$k] = hrtime(true) / 1e6;
            $l->release();
        }
    }
    usleep(20000);
}
foreach ($kinds as $k => $kind) {
    [$lo, $hi] = $lapse[$k];
    if (!isset($got[$k])) {
        printf("%s: still kept out %.0f ms after D's entry lapsed on every node\n", $kind, $until - $hi);
    } elseif ($lo === INF) {
        echo "$kind: D's entry not found on the nodes\n";
    } else {
        // (50 ms: the node's wall clock against this process's monotonic one)
        echo "$kind: ", $got[$k] >= $lo - 50 && $got[$k] <= $hi + rl_slack(1000) ? "free once D's entry lapsed"
            : sprintf('at %.0f ms, D lapsed at %.0f..%.0f ms', $got[$k], $lo, $hi), "\n";
    }
}
echo "queued after: ", array_sum(array_map(fn ($r) => fair_queued($r), $res)), "\n";
@unlink($log);
foreach ($res as $r) fair_del($r);
?>
--EXPECT--
L: L0:got,L1:got,L2:got
plain lock(): free once D's entry lapsed
lockAll(): free once D's entry lapsed
shared lock(): free once D's entry lapsed
queued after: 0
