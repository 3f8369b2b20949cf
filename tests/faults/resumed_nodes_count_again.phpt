--TEST--
A node that fell behind (SIGSTOP with our replies outstanding past the stall limit) and is resumed while a call runs counts again in that call: it is watched until it catches up, within its timeout, instead of failing as "stalled"
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$timeout = (int) rl_slack(1500);
$rl = rl_new(['retry_count' => 0, 'timeout' => $timeout, 'connect_timeout' => $timeout]);
$res = rl_name('resumed_count_again');
$warm = $rl->lock($res, 5000);
echo "warm-up: ", var_export($warm instanceof RedLock\Lock && $warm->release(), true), "\n";
foreach ([3, 4, 5] as $i) rl_node_ctl('pause', $i);
try {
    $rl->lock($res, 5000);
    echo "no exception\n";
} catch (RedLock\QuorumException $e) {
    echo "3 of 5 paused: QuorumException\n";
}
// past the stall limit (2 s, or twice the timeout): the three are "stalled" now
usleep((int) (max(2000, 2 * $timeout) + 300) * 1000);
// resumed by their pids (the pid files of tests/nodes.sh) 200 ms after the
// next lock() begins: the call finds them stalled, and they catch up during it
$pids = array_map(fn($i) => (int) file_get_contents(rl_nodes_dir() . "/node$i.pid"), [3, 4, 5]);
exec('(sleep 0.2; kill -CONT ' . implode(' ', $pids) . ') >/dev/null 2>&1 &');
try {
    $l = $rl->lock($res, 5000);
    echo "lock() right after the resume: ", $l instanceof RedLock\Lock ? 'acquired' : 'null', "\n";
    // decided at quorum: the two healthy nodes and at least one resumed one
    echo "a resumed node counted: ", var_export(rl_count_keys($res) >= 3, true), "\n";
    $l?->release();
} catch (RedLock\QuorumException $e) {
    echo "lock() right after the resume: ", $e->getMessage(), "\n";
}
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
warm-up: true
3 of 5 paused: QuorumException
lock() right after the resume: acquired
a resumed node counted: true
