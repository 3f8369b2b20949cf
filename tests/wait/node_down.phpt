--TEST--
wait: a node goes down during a wait: the other nodes' messages still wake the waiter, and the lock is taken on the live quorum
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
$res = rl_name('node_down');
$h = wait_holder($res, 1500);
$rl = rl_new();
$killer = pcntl_fork();
if ($killer === 0) {
    usleep(300000);           // the waiter is subscribed by now
    rl_node_ctl('kill', 5);
    exit(0);
}
$l = $rl->lock($res, 10000, ['wait' => 5000, 'retry_delay' => 3000, 'retry_jitter' => 0]);
$t = hrtime(true);
pcntl_waitpid($killer, $st);
[$rel, $what] = wait_holder_done($h);
$after = ($t - $rel) / 1e6;
echo "holder $what; acquired: ", $l ? 'yes' : 'no', "; within 300 ms of the release: ", $after < rl_slack(300) ? 'yes' : "no ($after ms)", "\n";
// woken by the first nodes that ran the release, the SET may reach a live node before the
// holder's release does there: a quorum of ours is what counts, node 5 is down
$v = rl_values($res);
echo "ours on a quorum: ", count(array_filter($v, fn($x) => $x === $l->token)) >= 3 ? 'yes' : 'no', ", node 5: ",
    $v[5] === false ? 'down' : var_export($v[5], true), "\n";
var_dump($l->release());

// the node comes back: later waits subscribe on it again
rl_node_ctl('restart', 5);
$h = wait_holder($res, 200);
$l = $rl->lock($res, 10000, ['wait' => 5000, 'retry_delay' => 3000, 'retry_jitter' => 0]);
$t = hrtime(true);
[$rel] = wait_holder_done($h);
echo "after the restart: acquired ", $l ? 'yes' : 'no', ", fast: ", ($t - $rel) / 1e6 < rl_slack(300) ? 'yes' : 'no',
    ", on a quorum: ", rl_count_value($res, $l->token) >= 3 ? 'yes' : 'no', "\n";
$l->release();

// a hung node (SIGSTOP): its subscription is never confirmed, and that costs no wait
// (confirmed on a quorum is enough; waiting for it would take the 1 s of its timeouts)
$slow = rl_new(['connect_timeout' => 500, 'timeout' => 500]);
$h = wait_holder($res, 5000);
$l = $slow->lock($res, 10000, ['wait' => 300]);   // subscriber connections opened while all answer
rl_node_ctl('pause', 3);
wait_holder_done($h);
$h = wait_holder($res, 80);
// (the release comes 80 ms in, after the holder's own steps; a wait that spent node 3's
// timeouts on its confirmation, 2 x 500 ms, would take the lock only after 1 s, well past
// 300 ms after the release; 604 ms in all was seen on a loaded machine)
$t0 = hrtime(true);
$l = $slow->lock($res, 10000, ['wait' => 5000, 'retry_delay' => 3000, 'retry_jitter' => 0]);
$t = hrtime(true);
[$rel] = wait_holder_done($h);
echo "node 3 hung: acquired ", $l ? 'yes' : 'no', ", woken at the release, not after a timeout: ",
    ($t - $rel) / 1e6 < rl_slack(300) && rl_ms($t0) < rl_slack(900) ? 'yes' : 'no (' . ($t - $rel) / 1e6 . ' ms after the release, ' . rl_ms($t0) . ' ms)', "\n";
$l->release();
rl_node_ctl('resume', 3);
rl_del($res);
?>
--CLEAN--
<?php require __DIR__ . '/../config.inc'; rl_restore_nodes(); ?>
--EXPECT--
holder released; acquired: yes; within 300 ms of the release: yes
ours on a quorum: yes, node 5: down
bool(true)
after the restart: acquired yes, fast: yes, on a quorum: yes
node 3 hung: acquired yes, woken at the release, not after a timeout: yes
