--TEST--
Restarted nodes: an int restart_grace keeps a node restarted empty out of the quorum for that many ms after its start, whatever the TTLs
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('int');
$grace = 2000;
$a = rl_new(['prefix' => $p, 'restart_grace' => $grace]);
$b = rl_new(['prefix' => $p, 'restart_grace' => $grace]);
$la = rt_lock_on_three($a, $p, 'r', 20000); // valid far past the grace: only the grace lets B in
$t0 = hrtime(true);
rt_restart_empty(1);
$t1 = hrtime(true); // the node started between $t0 and $t1 (a restart takes seconds on a loaded machine)
$seen = [];
[$lb, $ms] = rt_try_until($b, 'r', 5000, rl_slack(4 * $grace), 50, function ($l, $ms) use ($b, &$seen) {
    if (!$l) $seen[] = $b->stats()['nodes'][rl_nodes()[0]]['not_voting_why'];
});
$since = rl_ms($t0);
$sinceUp = rl_ms($t1);
echo "B acquired: ", $lb ? 'yes' : 'no', "\n";
// the node's uptime counts from its start, a little before we saw it; uptime is whole seconds
echo "not before the grace: ", $since >= $grace - 1000 ? 'yes' : "no ($since ms)", "\n";
// (from the node's start at the latest: the grace, the uptime counted 1 s short, polling; A's lock
// would hold 20 s)
echo "soon after it: ", $sinceUp <= rl_slack($grace + 3000) ? 'yes' : "no ($sinceUp ms after the restart)", "\n";
echo "while out: ", preg_match('/^restarted \d+ s ago, votes in \d+ s$/', $seen[0] ?? '') ? 'restarted N s ago, votes in M s' : var_export($seen[0] ?? null, true), "\n";
echo "B's token on: ", $lb ? rl_count_value($p . 'r', $lb->token) : 0, "\n";
rl_del($p . 'r');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
B acquired: yes
not before the grace: yes
soon after it: yes
while out: restarted N s ago, votes in M s
B's token on: 3
