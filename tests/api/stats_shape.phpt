--TEST--
stats(): documented shape, per-process counters shared by all RedLock objects, per-node ok/errors/timeouts
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0, 'timeout' => 100, 'connect_timeout' => 100]);
$s0 = $rl->stats();
$res = rl_name('stats');
$l = $rl->lock($res, 5000);
var_dump($rl->lock($res, 5000));
$l->extend(5000);
$l->release();
$s1 = $rl->stats();
$top = array_keys($s1); sort($top);
echo implode(',', $top), "\n";
echo "nodes keyed by name: ", count(array_intersect(array_keys($s1['nodes']), rl_nodes())), "\n";
$bad = 0;
foreach ($s1['nodes'] as $name => $n) {
    $k = array_keys($n); sort($k);
    $lk = array_keys($n["latency_us"] ?? []); sort($lk);
    // the documented keys must be there (extra diagnostics are tolerated)
    if (array_diff(['errors', 'last_error', 'latency_us', 'ok', 'timeouts', 'voting', 'not_voting_why'], $k)
        || $lk !== ["max", "p50", "p99"] || !is_bool($n['voting'])
        || !(is_null($n['not_voting_why']) || is_string($n['not_voting_why']))
        || !is_int($n['ok']) || !is_int($n['errors']) || !is_int($n['timeouts'])
        || !(is_null($n['last_error']) || is_string($n['last_error']))
        || count(array_filter($n['latency_us'], 'is_int')) !== 3) {
        $bad++;
        echo "bad node entry $name: ", json_encode($n), "\n";
    }
}
echo "bad node entries: $bad\n";
foreach (['acquired', 'conflicts', 'quorum_failures', 'released', 'extended', 'attempts', 'wakeups'] as $k) {
    if (!is_int($s1[$k])) echo "$k not int\n";
}

// attempts: two lock() calls without retries, one attempt each; no wait, no wake-up
foreach (['acquired', 'conflicts', 'quorum_failures', 'released', 'extended', 'attempts', 'wakeups'] as $k) {
    echo "$k +", $s1[$k] - $s0[$k], "\n";
}
$grew = 0;
foreach (rl_nodes() as $name) {
    $a = $s0['nodes'][$name] ?? ['ok' => 0];
    $b = $s1['nodes'][$name];
    $lat = $b['latency_us'];
    // every node answered; replies drained after an early decision may or may not be counted
    $grew += ($b['ok'] - $a['ok'] >= 1) && $lat['max'] > 0 && $lat['p50'] <= $lat['p99'] && $lat['p99'] <= $lat['max'];
}
echo "nodes with ok grown and sane latency: $grew\n";

// shared by every RedLock object of the process
$other = rl_new();
var_dump($other->stats()['acquired'] === $s1['acquired']);
$l = $other->lock($res, 5000);
$l->release();
var_dump($rl->stats()['acquired'] === $s1['acquired'] + 1);

// a dead node: errors and last_error
rl_node_ctl('kill', 5);
$name5 = rl_nodes()[4];
$e0 = $rl->stats()['nodes'][$name5]['errors'];
$l = $rl->lock($res, 5000);
$l->release();
$n5 = $rl->stats()['nodes'][$name5];
echo "dead node errors grew: ", var_export($n5['errors'] > $e0, true), ", last_error: ", var_export(is_string($n5['last_error']) && $n5['last_error'] !== '', true), "\n";
rl_node_ctl('restart', 5);

// three paused nodes: timeouts, and a quorum failure
foreach ([1, 2, 3] as $i) rl_node_ctl('pause', $i);
$before = $rl->stats();
try { $rl->lock($res, 5000); } catch (RedLock\QuorumException $e) { echo "QuorumException\n"; }
$after = $rl->stats();
echo "quorum_failures +", $after['quorum_failures'] - $before['quorum_failures'], "\n";
// docs/api.md "stats()": each node whose deadline had passed when the call was
// decided counts exactly one timeout (the failed attempt's release is only
// queued: it waits for nobody and counts nothing)
$timeouts = function (array $before, array $after): string {
    $d = [];
    foreach (rl_nodes() as $i => $n) $d[] = ($i + 1) . ':+' . ($after['nodes'][$n]['timeouts'] - $before['nodes'][$n]['timeouts']);
    return implode(' ', $d);
};
echo "timeouts: ", $timeouts($before, $after), "\n";
foreach ([1, 2, 3] as $i) rl_node_ctl('resume', $i);
// the same with node 5 dead: 4 answers, 5 fails at once, so the timeout of
// node 2 decides the call (1 ok + 1 pending < 3); node 3's deadline, the
// same instant as node 2's (one send time, one timeout), had passed too
rl_node_ctl('kill', 5);
foreach ([1, 2, 3] as $i) rl_node_ctl('pause', $i);
$before = $rl->stats();
try { $rl->lock($res, 5000); } catch (RedLock\QuorumException $e) { echo "QuorumException\n"; }
$after = $rl->stats();
echo "timeouts: ", $timeouts($before, $after), "\n";
foreach ([1, 2, 3] as $i) rl_node_ctl('resume', $i);
rl_node_ctl('restart', 5);
usleep(100000);
rl_del($res);
echo "nodes up: ", count(array_filter(rl_nodes(), 'rl_ping')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
NULL
acquired,attempts,auto_extended,conflicts,extended,nodes,quorum_failures,released,wakeups
nodes keyed by name: 5
bad node entries: 0
acquired +1
conflicts +1
quorum_failures +0
released +1
extended +1
attempts +2
wakeups +0
nodes with ok grown and sane latency: 5
bool(true)
bool(true)
dead node errors grew: true, last_error: true
QuorumException
quorum_failures +1
timeouts: 1:+1 2:+1 3:+1 4:+0 5:+0
QuorumException
timeouts: 1:+1 2:+1 3:+1 4:+0 5:+0
nodes up: 5
