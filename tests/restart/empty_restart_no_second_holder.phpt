--TEST--
Restarted nodes: a node restarted empty does not let a second client in while the first holds the lock on exactly 3 of 5 nodes; it votes again once up for the grace ('auto': the longest TTL + drift)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('empty');
$ttl = 3000;
$a = rl_new(['prefix' => $p, 'restart_grace' => 'auto']);
$b = rl_new(['prefix' => $p, 'restart_grace' => 'auto']); // another client of this process: it knew node 1's run_id
$la = rt_lock_on_three($a, $p, 'r', $ttl);
$validUntil = hrtime(true) + $la->remaining() * 1e6;
rt_restart_empty(1);
$t0 = hrtime(true);
$early = 0;
[$lb, $ms] = rt_try_until($b, 'r', $ttl, rl_slack(3 * $ttl), 50, function ($l, $ms) use ($la, &$early) {
    if ($l && $la->isValid()) {
        $early++;
    }
});
echo "B acquired while A valid: ", $early, "\n";
echo "B acquired: ", $lb ? 'yes' : 'no', "\n";
// node 1 votes again once up for ttl + drift (3000 + 30 + 2 ms); B may get the
// quorum sooner from nodes 1-3 once A's keys expire (A's validity end)
$afterRestart = (hrtime(true) - $t0) / 1e6;
echo "not before A's validity ended: ", hrtime(true) >= $validUntil ? 'yes' : 'no', "\n";
echo "within the grace + slack: ", $ms <= rl_slack($ttl + 1000) ? 'yes' : "no ($ms ms)", "\n";
// (on a quorum, not always on all 5: A's key expires on nodes 2 and 3 each at its own
// moment, and B's SET may meet it still on one of them: 'on: 4' in the Redis 8 entry)
$on = $lb ? rl_count_value($p . 'r', $lb->token) : 0;
echo "B's token on a quorum: ", $on >= 3 ? 'yes' : "no ($on)", "\n";
if ($lb) $lb->release();
rl_del($p . 'r');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
B acquired while A valid: 0
B acquired: yes
not before A's validity ended: yes
within the grace + slack: yes
B's token on a quorum: yes
