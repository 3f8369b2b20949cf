<?php
// nemesis.php -- 4 worker processes increment a counter (on a Redis outside the faulty
// network, on loopback) under the lock, while this process partitions (both ways or one
// way), makes lossy, slows (the delay proxy: 100-400 ms each way) and heals nodes at
// random every 1-3 s, at most 2 faulty at once (with NF_RESTARTS=1 also kills and
// restarts a node empty). The workers reach the nodes through their delay proxies. Checks 0 lost updates (the
// counter equals the sum of the workers' increments) and 0 overlaps (a holder count
// INCRed on entry, DECRed on exit, never above 1).
require __DIR__ . '/common.inc';
$secs = nf_secs('NF_SECS', 25);
$restarts = getenv('NF_RESTARTS') === '1';
$aux = getenv('NF_AUX'); // host:port of the counter's Redis
[$ah, $ap] = explode(':', $aux);
$key = nf_name('nemesis');
$deadline = nf_now() + $secs;
$kids = [];
for ($w = 0; $w < 4; $w++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $r = new Redis(); $r->connect($ah, (int) $ap, 2.0);
        $rl = nf_rl([], nf_dnodes());
        $n = 0; $over = 0;
        // anything a worker did not expect ends its run with the reason in its result
        set_exception_handler(function (Throwable $e) use ($w, &$n, &$over) {
            file_put_contents(getenv('NF_DIR') . "/nemesis-$w", "$n $over " . get_class($e) . ': ' . $e->getMessage());
            exit(1);
        });
        while (nf_now() < $deadline) {
            try { $l = $rl->lock($key, 1000, ['wait' => 500]); } catch (RedLock\QuorumException $e) { usleep(20000); continue; }
            if (!$l) continue;
            if ($r->incr("$key:holders") > 1) $over++;
            $v = (int) $r->get("$key:counter");
            usleep(random_int(0, 3000));
            $ok = $l->remaining() > 100; // only write while surely valid
            if ($ok) { $r->set("$key:counter", (string) ($v + 1)); $n++; }
            $r->decr("$key:holders");
            $l->release();
        }
        file_put_contents(getenv('NF_DIR') . "/nemesis-$w", "$n $over");
        exit(0);
    }
    $kids[] = $pid;
}
$faulty = []; $events = 0;
mt_srand((int) (getenv('NF_SEED') ?: 22));
while (nf_now() < $deadline) {
    usleep(mt_rand(1000000, 3000000));
    if (nf_now() >= $deadline) break;
    $k = mt_rand(1, 5);
    if (isset($faulty[$k])) { nf_heal($k); unset($faulty[$k]); $events++; continue; }
    if (count($faulty) >= 2) { $h = array_key_first($faulty); nf_heal($h); unset($faulty[$h]); }
    $f = mt_rand(0, $restarts ? 5 : 4);
    if ($f === 0) nf_partition($k);
    elseif ($f === 1) nf_partition($k, 'in');
    elseif ($f === 2) nf_partition($k, 'out');
    elseif ($f === 3) nf_loss($k, 30);
    elseif ($f === 4) nf_delay($k, mt_rand(100, 400));
    else { nf_restart($k); $events++; continue; }
    $faulty[$k] = true; $events++;
}
foreach (array_keys($faulty) as $k) nf_heal($k);
$lost = 0; $sum = 0; $over = 0;
$how = [];
foreach ($kids as $w => $pid) {
    pcntl_waitpid($pid, $st);
    $how[$w] = pcntl_wifsignaled($st) ? 'killed by signal ' . pcntl_wtermsig($st) : 'exit ' . pcntl_wexitstatus($st);
}
for ($w = 0; $w < 4; $w++) {
    $s = @file_get_contents(getenv('NF_DIR') . "/nemesis-$w");
    if ($s === false) nf_result('nemesis', false, "worker $w left no result ({$how[$w]})");
    $f = explode(' ', $s, 3);
    if (isset($f[2])) nf_result('nemesis', false, "worker $w ended on {$f[2]} ({$how[$w]})");
    [$n, $o] = array_map('intval', $f);
    $sum += $n; $over += $o;
}
$r = new Redis(); $r->connect($ah, (int) $ap, 2.0);
$counter = (int) $r->get("$key:counter");
$lost = $sum - $counter;
nf_result('nemesis', $lost === 0 && $over === 0 && $sum > 0, sprintf('%.0f s, %d fault events%s: %d increments, counter %d, %d lost, %d overlaps',
    $secs, $events, $restarts ? ' (empty restarts included)' : '', $sum, $counter, $lost, $over));
