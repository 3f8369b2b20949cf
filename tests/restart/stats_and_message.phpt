--TEST--
Restarted nodes: stats() has 'voting' and 'not_voting_why' for every node; a node out of the quorum is no failure, and a QuorumException lists it as "restarted N s ago, votes in M s"
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('stats');
// timeout 1 s (scaled): node 1's new connection and INFO must not time out on a loaded machine (an
// error of its own, which "not an error" would count)
$rl = rl_new(['prefix' => $p, 'restart_grace' => 'auto', 'retry_count' => 0, 'timeout' => (int) rl_slack(1000)]);
$l = $rl->lock('r', 20000); // the longest TTL of this prefix: 20 s
$l->release();
foreach ($rl->stats()['nodes'] as $name => $n) {
    echo "$name: ", var_export($n['voting'], true), ' ', var_export($n['not_voting_why'], true), "\n";
}
rt_restart_empty(1);
// The lock decides at the quorum: under load the 4 nodes already connected
// can answer before node 1's new connection and INFO, and node 1 is then
// not judged in that call (stats() keeps its last judgment: voting). Locked
// again until a call has judged node 1 (nearly always the first; bounded).
$t0 = hrtime(true);
do {
    $l = $rl->lock('r', 1000);
    $n1 = $rl->stats()['nodes'][rl_nodes()[0]];
    if ($n1['not_voting_why'] !== null || rl_ms($t0) > rl_slack(5000)) break;
    if ($l) $l->release();
} while (true);
echo "lock with node 1 out: ", $l ? 'acquired on ' . rl_count_value($p . 'r', $l->token) : 'refused', "\n";
echo "node 1 voting: ", var_export($n1['voting'], true), "\n";
echo "why: ", preg_replace('/\d+/', 'N', $n1['not_voting_why']), "\n";
preg_match('/votes in (\d+) s/', $n1['not_voting_why'], $m);
echo "votes in about 20 s: ", $m && $m[1] >= 18 && $m[1] <= 21 ? 'yes' : $n1['not_voting_why'], "\n";
echo "not an error: ", $n1['errors'], "\n";
if ($l) $l->release();
// two nodes down and node 1 out: no quorum, and the message says why
rl_node_ctl('kill', 4);
rl_node_ctl('kill', 5);
try {
    $rl->lock('r', 1000);
    echo "no exception\n";
} catch (RedLock\QuorumException $e) {
    $msg = $e->getMessage();
    echo "node 1: ", preg_match('/' . preg_quote(rl_nodes()[0], '/') . ' restarted \d+ s ago, votes in \d+ s/', $msg) ? 'restarted N s ago, votes in M s' : $msg, "\n";
    echo "nodes 4, 5 named: ", str_contains($msg, rl_nodes()[3]) && str_contains($msg, rl_nodes()[4]) ? 'yes' : $msg, "\n";
}
echo "node 1 errors: ", $rl->stats()['nodes'][rl_nodes()[0]]['errors'], "\n";
rl_del($p . 'r');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECTF--
%s: true NULL
%s: true NULL
%s: true NULL
%s: true NULL
%s: true NULL
lock with node 1 out: acquired on 5
node 1 voting: false
why: restarted N s ago, votes in N s
votes in about 20 s: yes
not an error: 0
node 1: restarted N s ago, votes in M s
nodes 4, 5 named: yes
node 1 errors: 0
