--TEST--
Restarted nodes: two nodes restarted empty within one grace do not clear each other (their keys came back with a shorter TTL): no second holder while the first holds on exactly 3 of 5, with the third slow
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('two');
// V used 1 s TTLs: every node judged, maxttl 1 s everywhere
$v = rl_new(['prefix' => $p, 'restart_grace' => 'auto', 'retry_count' => 0, 'timeout' => 200]);
$v->lock('warm', 1000)->release();
// H, cut off from nodes 4 and 5, holds 'res' for 30 s on nodes 1-3: they are
// paused while it locks, and what its script did there when they resumed
// (the key, the maxttl raised to 30 s) is undone, as if it never arrived
$mk = $p . "\0redlock:maxttl";
$saved = [];
foreach ([4, 5] as $i) $saved[$i] = rl_redis(rl_nodes()[$i - 1])->cmd('GET', $mk);
rl_node_ctl('pause', 4);
rl_node_ctl('pause', 5);
$h = rl_new(['prefix' => $p, 'restart_grace' => 'auto', 'retry_count' => 0, 'timeout' => 100]);
$lh = $h->lock('res', 30000);
rl_node_ctl('resume', 4);
rl_node_ctl('resume', 5);
foreach ([4, 5] as $i) {
    $r = rl_redis(rl_nodes()[$i - 1]);
    for ($t0 = hrtime(true); $r->cmd('EXISTS', $p . 'res') == 0 && rl_ms($t0) < rl_slack(2000); usleep(5000));
    $r->cmd('DEL', $p . 'res');
    $r->cmd('SET', $mk, $saved[$i]);
}
echo "H holds on 3 of 5: ", $lh && rl_count_value($p . 'res', $lh->token) === 3 ? 'yes' : 'no', "\n";
// nodes 2 and 3 restart empty; once they are up for V's 1 s grace (+1 s margin)...
rt_restart_empty(2);
rt_restart_empty(3);
usleep(2600 * 1000);
// ... V asks while node 1 (the one that still has H's 30 s) does not answer
rl_node_ctl('pause', 1);
try {
    $lv = $v->lock('res', 1000);
    $why = '';
} catch (RedLock\QuorumException $e) {
    $lv = null;
    $why = $e->getMessage();
}
rl_node_ctl('resume', 1);
echo "V acquired while H valid: ", $lv ? ($lh->isValid() ? 'YES (two holders)' : 'after H') : 'no', "\n";
// what the message says of nodes 2 and 3: past their grace, waiting for another voter's answer
foreach ([1, 2] as $i) {
    $name = preg_quote(rl_nodes()[$i], '/');
    echo "node ", $i + 1, ": ", preg_match("/$name restarted \\d+ s ago, ([^;]*)/", $why, $m)
        ? preg_replace('/\d+/', 'N', $m[1]) : "($why)", "\n";
}
if ($lv) $lv->release();
$lh->release();
rl_del($p . 'res', $p . 'warm');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
H holds on 3 of 5: yes
V acquired while H valid: no
node 2: past its grace, votes when N more voting nodes answer in one call
node 3: past its grace, votes when N more voting nodes answer in one call
