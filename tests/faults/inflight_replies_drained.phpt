--TEST--
Early decision: lock() returns once a quorum answered; the late reply of a slow node is drained, never mixed into the next command
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0, 'timeout' => 1500, 'connect_timeout' => 1500]);
$res = rl_name('inflight_a');
$res2 = rl_name('inflight_b');
// connections open on every node first
$w = $rl->lock($res, 1000);
$w->release();

rl_node_ctl('pause', 5);
$t0 = hrtime(true);
$l = $rl->lock($res, 10000);
$ms = rl_ms($t0);
var_dump($l instanceof RedLock\Lock);
echo "returned before the 1500 ms timeout: ", $ms < 500 ? 'yes' : "no ($ms ms)", "\n";
rl_node_ctl('resume', 5);
usleep(100000);     // node 5 now executes the queued SET
echo "ours on: ", rl_count_value($res, $l->token), "\n";
var_dump($l->release());
echo "keys after release: ", rl_count_keys($res), "\n";

// the next commands on the same connections see their own replies
$l2 = $rl->lock($res2, 10000);
echo "second lock ours on: ", rl_count_value($res2, $l2->token), "\n";
var_dump($rl->isLocked($res2), $rl->isLocked($res));
var_dump($l2->extend(20000));
echo "PTTL > 10000 on: ", count(array_filter(rl_pttls($res2), fn($p) => $p > 10000)), "\n";
var_dump($l2->release());
echo "keys: ", rl_count_keys($res2), "\n";
rl_del($res, $res2);
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
bool(true)
returned before the 1500 ms timeout: yes
ours on: 5
bool(true)
keys after release: 0
second lock ours on: 5
bool(true)
bool(false)
bool(true)
PTTL > 10000 on: 5
bool(true)
keys: 0
