--TEST--
Fair waiting with nodes paused: two of five nodes stop while 4 fair waiters queue, one more waiter asks meanwhile (its ticket from the three left), and the order holds; the nodes resume and their stale entries go
--EXTENSIONS--
redlock
pcntl
posix
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/fair.inc';
$rl = rl_new(['timeout' => 100]);
$res = rl_name('fairpause');
$log = sys_get_temp_dir() . '/rl-fair-pause-' . getmypid();
@unlink($log);
$opts = ['wait' => (int) rl_slack(20000), 'fair' => true, 'retry_delay' => 100, 'retry_jitter' => 50];
$held = $rl->lock($res, 30000);
$pids = [];
for ($i = 0; $i < 4; $i++) {
    $pids[] = fair_waiter((string) $i, $res, 10000, $opts, $log);
    usleep(30000);
    if (!fair_wait_queued($res, $i + 1)) echo "waiter $i never queued\n";
}
try {
    rl_node_ctl('pause', 1);
    rl_node_ctl('pause', 2);
    // a fifth waiter asks while two nodes are away: its ticket from the other three
    $pids[] = fair_waiter('4', $res, 10000, $opts, $log);
    $t0 = hrtime(true);
    $q = 0;
    while (rl_ms($t0) < rl_slack(5000)) {
        $on = array_filter(fair_queue($res), fn ($x) => $x !== false && count($x) === 5);
        if (count($on) >= 3) { $q = 5; break; }
        usleep(10000);
    }
    echo "queued on the three nodes left: $q\n";
    $held->release();
    if (fair_reap($pids, rl_slack(20000)) > 0) echo "waiters killed\n";
} finally {
    rl_node_ctl('resume', 1);
    rl_node_ctl('resume', 2);
}
$rows = fair_log($log);
echo "order: ", implode(',', array_map(fn ($r) => $r[0] . ':' . $r[1], $rows)), "\n";
// the paused nodes still hold the entries of those that won elsewhere: each winner's leave
// (queued for them) takes them out once they answer again
$t0 = hrtime(true);
do {
    $left = array_sum(array_map(fn ($q) => $q === false ? 0 : count($q), fair_queue($res)));
    if ($left === 0) break;
    usleep(20000);
} while (rl_ms($t0) < rl_slack(3000));
echo "entries left after resume: $left\n";
@unlink($log);
fair_del($res);
?>
--CLEAN--
<?php require __DIR__ . '/../config.inc'; rl_restore_nodes(); ?>
--EXPECT--
queued on the three nodes left: 5
order: 0:got,1:got,2:got,3:got,4:got
entries left after resume: 0
