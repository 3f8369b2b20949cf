--TEST--
RedLock::metrics(): Prometheus text format (HELP/TYPE for every sample, *_total counters, cumulative buckets ending +Inf), counts after N locks, equal to stats() in a fresh process
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
require __DIR__ . '/metrics.inc';

// a new CLI process starts at 0
$m0 = rlm_parse(RedLock::metrics());
echo "problems at start: ", count($m0['problems']), "\n";
echo "missing families: ", implode(',', rlm_missing($m0)) ?: 'none', "\n";
echo "all zero at start: ", max(array_merge([0], array_values(rlm_figures($m0)))) == 0 ? 'yes' : 'no', "\n";
echo "shared: ", rlm_value($m0, 'redlock_metrics_shared', 'redlock_metrics_shared'), "\n";

$rl = rl_new(['retry_count' => 0]);
$N = 7;
$res = rl_name('metrics');
for ($i = 0; $i < $N; $i++) {
    $l = $rl->lock("$res:$i", 5000);
    if (!$l || !$l->release()) echo "cycle $i failed\n";
}
$held = $rl->lock("$res:held", 5000);
var_dump($rl->lock("$res:held", 5000));   // a conflict
var_dump($held->extend(5000));
$held->release();

$text = RedLock::metrics();
$m = rlm_parse($text);
echo "problems: ", $m['problems'] ? implode("\n", $m['problems']) : 'none', "\n";
echo "types: ";
foreach (rlm_required() as $f => $t) echo $m['families'][$f]['type'] === $t ? '' : "$f ";
echo "ok\n";
echo "acquisitions: ", rlm_counter($m, 'redlock_acquisitions_total', ['mode' => 'exclusive']), "\n";
echo "shared/permit series: ", rlm_counter($m, 'redlock_acquisitions_total', ['mode' => 'shared']),
    rlm_counter($m, 'redlock_acquisitions_total', ['mode' => 'permit']), "\n";
foreach (['conflicts', 'releases', 'attempts', 'quorum_failures', 'lost', 'wakeups'] as $c) {
    echo "$c: ", rlm_counter($m, "redlock_{$c}_total"), "\n";
}
echo "extensions: ", rlm_counter($m, 'redlock_extensions_total', ['by' => 'extend']), " + ",
    rlm_counter($m, 'redlock_extensions_total', ['by' => 'watchdog']), "\n";
echo "wait count: ", rlm_value($m, 'redlock_wait_seconds', 'redlock_wait_seconds_count'), "\n";
echo "hold count: ", rlm_value($m, 'redlock_hold_seconds', 'redlock_hold_seconds_count'), "\n";
$hold = rlm_hist_series($m['families'], 'redlock_hold_seconds')['[]'];
echo "hold sum > 0 and below the run's time: ", $hold['sum'] > 0 && $hold['sum'] < 60 ? 'yes' : 'no', "\n";

// every node: three results and a histogram; in this fresh process the
// figures are exactly what stats() counted
$st = $rl->stats();
$nodes = rl_nodes();
sort($nodes);
$req = rlm_nodes($m, 'redlock_node_requests_total');
sort($req);
$lat = rlm_nodes($m, 'redlock_node_latency_seconds');
sort($lat);
echo "nodes with requests: ", $req === $nodes ? 'all' : json_encode($req), "\n";
echo "nodes with a histogram: ", $lat === $nodes ? 'all' : json_encode($lat), "\n";
$calls = $N * 2 + 4; // lock+release each, the held lock, the conflict, extend, release
$bad = [];
$answered = 0;
$series = rlm_hist_series($m['families'], 'redlock_node_latency_seconds');
foreach ($nodes as $n) {
    $ok = rlm_counter($m, 'redlock_node_requests_total', ['node' => $n, 'result' => 'ok']);
    $err = rlm_counter($m, 'redlock_node_requests_total', ['node' => $n, 'result' => 'error']);
    $to = rlm_counter($m, 'redlock_node_requests_total', ['node' => $n, 'result' => 'timeout']);
    if ([$ok, $err, $to] !== [$st['nodes'][$n]['ok'], $st['nodes'][$n]['errors'], $st['nodes'][$n]['timeouts']]) {
        $bad[] = "$n: metrics $ok/$err/$to, stats() " . json_encode($st['nodes'][$n]);
    }
    // at most one request per call (and the conflict's cleanup, sent to the
    // nodes it did not wait for); replies no call waited for may still be unread
    if ($ok > $calls + 1 || $err || $to) $bad[] = "$n: ok=$ok errors=$err timeouts=$to of $calls calls";
    $h = $series[json_encode(['node' => $n])];
    if ($h['count'] > $ok) $bad[] = "$n: latency count {$h['count']} above ok $ok";
    $answered += $h['count'];
}
// every call was decided by at least a quorum of answers
if ($answered < 3 * $calls) $bad[] = "answers observed: $answered, below 3 x $calls calls";
echo "per node: ", $bad ? implode("\n", $bad) : 'ok', "\n";
echo "acquired = stats(): ", rlm_counter($m, 'redlock_acquisitions_total', ['mode' => 'exclusive']) === $st['acquired'] ? 'yes' : 'no', "\n";
echo "node slots: ", rlm_value($m, 'redlock_metrics_node_slots', 'redlock_metrics_node_slots'), "\n";

// the text itself: times in seconds, le values as decimals, histogram lines in order
echo "units: ", preg_match('/_(ms|us|milliseconds)\b/', $text) ? 'bad' : 'seconds', "\n";
echo "no OpenMetrics-only lines: ", preg_match('/_created|^# (UNIT|EOF)/m', $text) ? 'no' : 'yes', "\n";
preg_match_all('/^redlock_wait_seconds_bucket\{le="([^"]+)"\}/m', $text, $les);
echo "wait le: ", implode(' ', $les[1]), "\n";

// a restored lock's release counts, but it has no hold time of ours
$r = $rl->lock("$res:r", 5000);
$before = rlm_parse(RedLock::metrics());
var_dump($rl->restore("$res:r", $r->token)->release());
$after = rlm_parse(RedLock::metrics());
echo "restored: releases +", rlm_counter($after, 'redlock_releases_total') - rlm_counter($before, 'redlock_releases_total'),
    ", hold observations +", rlm_value($after, 'redlock_hold_seconds', 'redlock_hold_seconds_count')
    - rlm_value($before, 'redlock_hold_seconds', 'redlock_hold_seconds_count'), "\n";
?>
--EXPECT--
problems at start: 0
missing families: none
all zero at start: yes
shared: 1
NULL
bool(true)
problems: none
types: ok
acquisitions: 8
shared/permit series: 00
conflicts: 1
releases: 8
attempts: 9
quorum_failures: 0
lost: 0
wakeups: 0
extensions: 1 + 0
wait count: 8
hold count: 8
hold sum > 0 and below the run's time: yes
nodes with requests: all
nodes with a histogram: all
per node: ok
acquired = stats(): yes
node slots: 5
units: seconds
no OpenMetrics-only lines: yes
wait le: 0.0001 0.0005 0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10 30 60 +Inf
bool(true)
restored: releases +1, hold observations +0
