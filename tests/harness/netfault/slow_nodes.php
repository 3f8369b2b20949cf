<?php
// slow_nodes.php -- two of five nodes slow (the delay proxy: NF_DELAY ms each way, 300 by
// default, six times the 50 ms timeout): lock() goes on with the three fast nodes and does
// not wait for the slow ones' answers (a round trip of 2 x NF_DELAY); the SETs that land
// late on the slow nodes are undone there by the releases queued behind them (no key of
// ours left on them once their round trip is over); a second client never gets a lock the
// first holds; the slow nodes count timeouts in stats(), and once the delay ends they are
// in the quorum again within 1 s of their last delayed answer (2 x NF_DELAY after the end:
// what was in flight still arrives late): a lock lands on all five. With three slow, the quorum
// needs a slow one: lock() fails at its timeout, before the slow round trip is over, and
// leaves nothing behind on them.
require __DIR__ . '/common.inc';
$delay = (int) nf_secs('NF_DELAY', 400);
$nodes = nf_dnodes();
$rl = nf_rl(['retry_count' => 0], $nodes);
$b = nf_rl(['retry_count' => 0], $nodes);
$base = nf_name('slow');
for ($i = 0; $i < 3; $i++) ($rl->lock("$base:warm", 2000))?->release();
foreach ([1, 2, 3, 4, 5] as $k) if (nf_ok($rl, $k, $nodes) === 0) nf_result('slow_nodes', false, "node $k never answered before the delay");
$to = [4 => $rl->stats()['nodes'][$nodes[3]]['timeouts'], 5 => $rl->stats()['nodes'][$nodes[4]]['timeouts']];
nf_delay(4, $delay);
nf_delay(5, $delay);
$ms = []; $fail = []; $keys = [];
for ($i = 0; $i < 10; $i++) {
    $res = "$base:$i";
    $keys[] = $res;
    $t0 = nf_now();
    $l = $rl->lock($res, 10000);
    $ms[] = (nf_now() - $t0) * 1000;
    if (!$l) { $fail[] = "lock $i: null"; continue; }
    if ($b->lock($res, 10000) !== null) $fail[] = "lock $i: a second client got it too";
    if (!$l->release()) $fail[] = "release $i: false";
}
sort($ms);
$p50 = $ms[intdiv(count($ms), 2)];
// no key of ours on the slow nodes once their last round trip is over (bounded: 4 round trips + 1 s)
$t0 = nf_now();
$left = $keys;
while ($left && nf_now() < $t0 + 8 * $delay / 1000 + 1) {
    $left = array_values(array_filter($left, fn($k) => nf_exists(4, $k) !== false || nf_exists(5, $k) !== false));
    if ($left) usleep(50000);
}
$gone = nf_now() - $t0;
// three slow: no quorum without a slow node
nf_delay(3, $delay);
$t0 = nf_now();
try { $l3 = $rl->lock("$base:three", 10000); $r3 = $l3 ? 'a lock' : 'null'; } catch (RedLock\QuorumException $e) { $l3 = null; $r3 = 'QuorumException'; }
$ms3 = (nf_now() - $t0) * 1000;
if ($l3) $fail[] = 'three slow: lock() got a lock';
$t0 = nf_now();
do {
    $left3 = array_filter([3, 4, 5], fn($k) => nf_exists($k, "$base:three") !== false);
} while ($left3 && nf_now() < $t0 + 8 * $delay / 1000 + 1 && usleep(50000) === null);
nf_heal(3);
$st = $rl->stats()['nodes'];
$timeouts = [4 => $st[$nodes[3]]['timeouts'] - $to[4], 5 => $st[$nodes[4]]['timeouts'] - $to[5]];
// the delay ends: within 1 s a lock is on all five nodes
nf_heal(4);
nf_heal(5);
$t1 = nf_now();
$all = false;
$lim = 2 * $delay / 1000 + 1.0;
while (!$all && nf_now() < $t1 + $lim + 5) {
    try { $l = $rl->lock("$base:after", 10000); } catch (RedLock\QuorumException $e) { $l = null; }
    if ($l) {
        usleep(20000); // (the SETs past the quorum)
        $all = count(array_filter([1, 2, 3, 4, 5], fn($k) => nf_exists($k, "$base:after") === true)) === 5;
        $l->release();
    }
    if (!$all) usleep(50000);
}
$back = nf_now() - $t1;
$ok = !$fail && $p50 < $delay && !$left && $timeouts[4] > 0 && $timeouts[5] > 0 && $all && $back < $lim && $ms3 < 2 * $delay && !$left3;
nf_result('slow_nodes', $ok, sprintf('nodes 4, 5 delayed %d ms each way (timeout 50 ms): 10 lock/release, lock() p50 %.1f ms, max %.1f ms (limit p50 < %d ms)%s;'
    . ' their keys gone %.2f s after the last release%s; timeouts counted on 4: %d, 5: %d; nodes 3-5 slow: %s in %.1f ms (limit: before the slow round trip, %d ms), its key %s on them;'
    . ' delay ended: a lock on all 5 nodes %s %.2f s after (limit %.1f s: 1 s after what was in flight)',
    $delay, $p50, end($ms), $delay, $fail ? ' ' . implode(', ', $fail) : '', $gone, $left ? ' (still there: ' . count($left) . ')' : '',
    $timeouts[4], $timeouts[5], $r3, $ms3, 2 * $delay, $left3 ? 'still on ' . implode(',', $left3) : 'not left',
    $all ? 'within' : 'not within', $back, $lim));
