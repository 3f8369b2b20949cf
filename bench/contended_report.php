<?php
// contended_report.php -- figures of one contended run (bench/contended.sh) from the
// per-process outputs: php contended_report.php DIR > table; writes DIR/contended.json.
//
// Files in DIR: unc.json (uncontended lock+release, ext), <scenario>_<impl>_<k>.json
// (one per process), cmds_<scenario>_<impl>.txt (Redis commands processed, summed over
// the nodes, INFO calls excluded), meta.json.
declare(strict_types=1);

$dir = $argv[1] ?? '.';
$meta = json_decode((string)@file_get_contents("$dir/meta.json"), true) ?: [];
$unc = json_decode((string)@file_get_contents("$dir/unc.json"), true);
$uncUs = (int)($unc['uncontended_us'] ?? 0);
// the Redis servers' CPU per uncontended cycle (rcpu_unc.txt: seconds over the unc run)
$uncRcpu = @file_get_contents("$dir/rcpu_unc.txt");
$uncSrvUs = $uncRcpu !== false && ($unc['n'] ?? 0) > 0
    ? (int)round((float)$uncRcpu * 1e6 / ($unc['n'] + ($unc['paced_n'] ?? 0))) : null;
// the same cycle paced as in a handoff (idle for the hold time before lock() and release())
$pacedUs = (int)($unc['paced_us'] ?? 0);

function pct(array $v, float $p): float
{
    if (!$v) {
        return 0.0;
    }
    sort($v);
    return (float)$v[min(count($v) - 1, (int)floor($p * (count($v) - 1) + 0.5))];
}

/** Every figure of one scenario run of one implementation. */
function analyse(string $dir, string $sc, string $impl, array $meta, int $uncUs, int $pacedUs = 0): ?array
{
    $procs = [];
    foreach (glob("$dir/{$sc}_{$impl}_[0-9]*.json") as $f) {
        $j = json_decode((string)file_get_contents($f), true);
        if (!is_array($j)) {
            $procs[] = ['crashed' => true];
            continue;
        }
        if (!empty($j['skipped'])) {
            return ['skipped' => true];
        }
        $procs[] = $j;
    }
    if (!$procs) {
        return null;
    }
    $ev = [];
    $timeouts = $errors = $crashed = 0;
    $per = [];
    foreach ($procs as $k => $p) {
        if (!empty($p['crashed'])) {
            $crashed++;
            continue;
        }
        $timeouts += $p['timeouts'];
        if (isset($p['lib_attempts'])) {
            $libAtt = ($libAtt ?? 0) + $p['lib_attempts'];
            $libWk = ($libWk ?? 0) + $p['lib_wakeups'];
        }
        $errors += $p['errors'];
        $per[$k] = count($p['events']);
        foreach ($p['events'] as $e) {
            $ev[] = ['p' => $k, 'req' => $e[0], 'acq' => $e[1], 'rel0' => $e[2], 'rel1' => $e[3]];
        }
    }
    usort($ev, fn ($a, $b) => $a['acq'] <=> $b['acq']);
    $n = count($ev);
    $overlaps = $cross = $pairs = 0;
    $handoff = [];
    $idle = [];
    $holds = [];
    for ($i = 0; $i < $n; $i++) {
        $holds[] = $ev[$i]['rel0'] - $ev[$i]['acq'];
        if ($i + 1 >= $n) {
            break;
        }
        $a = $ev[$i];
        $b = $ev[$i + 1];
        if ($b['acq'] < $a['rel0']) {
            $overlaps++;   // acquired while the previous holder was still in its critical section
        }
        $pairs++;
        if ($b['p'] !== $a['p']) {
            $cross++;
            // a handoff: the next one was already waiting when release() returned
            if ($b['req'] < $a['rel1']) {
                $handoff[] = max(0, $b['acq'] - $a['rel1']);
                // the lock free, from the holder calling release() to the next lock() returning
                $idle[] = max(0, $b['acq'] - $a['rel0']);
            }
        }
    }
    $hold = pct($holds, 0.5);
    $libAtt ??= null;
    $libWk ??= null;
    $r = ['impl' => $impl, 'processes' => count($procs), 'acquisitions' => $n, 'timeouts' => $timeouts,
        'errors' => $errors, 'crashed' => $crashed, 'overlaps' => $overlaps,
        'hold_us_p50' => $hold, 'uncontended_us' => $uncUs,
        'handoff_us_p50' => pct($handoff, 0.5), 'handoff_us_p99' => pct($handoff, 0.99),
        'handoffs' => count($handoff),
        'idle_us_mean' => $idle ? round(array_sum($idle) / count($idle)) : 0,
        'cross_share' => $pairs ? round($cross / $pairs, 3) : 0.0,
        'fairness' => $per && max($per) > 0 ? round(min($per) / max($per), 3) : 0.0,
        // the extension's stats(): attempts and wake-ups per acquisition
        'attempts_per_acq' => $libAtt !== null && $n ? round($libAtt / $n, 2) : null,
        'wakeups_per_acq' => $libWk !== null && $n ? round($libWk / $n, 2) : null];
    // CPU: the processes' own (their measured part: lock, hold, release) and the Redis
    // servers'; on C cores the run cannot take less than their sum / C (its floor)
    $cpu = array_sum(array_map(fn ($p) => (float)($p['cpu_ms'] ?? 0), array_filter($procs, fn ($p) => empty($p['crashed']))));
    $rcpu = @file_get_contents("$dir/rcpu_{$sc}_{$impl}.txt");
    $r['client_cpu_ms'] = round($cpu, 1);
    $r['redis_cpu_ms'] = $rcpu !== false ? round((float)$rcpu * 1000, 1) : null;
    $r['redis_cpu_us_per_acq'] = $rcpu !== false && $n ? round((float)$rcpu * 1e6 / $n) : null;
    $cmds = @file_get_contents("$dir/cmds_{$sc}_{$impl}.txt");
    if ($cmds !== false && $n > 1) {
        $r['redis_cmds'] = (int)$cmds;
        $r['cmds_per_handoff'] = round((int)$cmds / $n, 1);
    }
    $ideal1 = $hold + $uncUs;   // one critical section + an uncontended lock+release, µs
    $paced1 = $pacedUs > 0 ? $hold + $pacedUs : 0;   // the same with the paced lock+release
    if ($sc === 'burst' && $n) {
        $start = (float)($meta['burst_start_us'][$impl] ?? min(array_column($ev, 'req')));
        $all = max(array_column($ev, 'rel1')) - $start;
        $lat = array_map(fn ($e) => $e['acq'] - $e['req'], $ev);
        $cores = max(1, (int)@shell_exec('nproc 2>/dev/null'));
        $r['cpu_floor_x_ideal'] = round(($r['client_cpu_ms'] + ($r['redis_cpu_ms'] ?? 0)) / $cores
            / max(0.001, count($procs) * $ideal1 / 1000), 2);
        $r += ['all_served_ms' => round($all / 1000, 1), 'ideal_ms' => round(count($procs) * $ideal1 / 1000, 1),
            'x_ideal' => round($all / max(1, count($procs) * $ideal1), 2),
            'x_paced_ideal' => $paced1 ? round($all / (count($procs) * $paced1), 2) : null,
            'latency_ms_p50' => round(pct($lat, 0.5) / 1000, 1), 'latency_ms_p99' => round(pct($lat, 0.99) / 1000, 1)];
    }
    if ($sc === 'steady' && $n) {
        $secs = (float)($meta['steady_seconds'] ?? 1);
        $t0 = min(array_column($ev, 'req'));
        $t1 = max(array_column($ev, 'rel1'));
        $rate = $n / max(1e-6, ($t1 - $t0) / 1e6);
        $ideal = 1e6 / max(1, $ideal1);
        // the rate the machine's CPU allows with this CPU per acquisition, as a share of the ideal
        $cores = max(1, (int)@shell_exec('nproc 2>/dev/null'));
        $perAcq = ($r['client_cpu_ms'] + ($r['redis_cpu_ms'] ?? 0)) / $n;
        $r['cpu_ceiling_of_ideal'] = round(min(1e6, $cores * 1000 / max(0.001, $perAcq)) / $ideal, 2);
        $r['of_paced_ideal'] = $paced1 ? round($rate / (1e6 / $paced1), 3) : null;
        $r += ['acq_per_s' => round($rate, 1), 'ideal_per_s' => round($ideal, 1), 'of_ideal' => round($rate / $ideal, 3),
            'seconds' => $secs];
    }
    return $r;
}

$out = ['uncontended_us' => $uncUs, 'uncontended_paced_us' => $pacedUs ?: null, 'uncontended_redis_cpu_us' => $uncSrvUs, 'meta' => $meta, 'burst' => [], 'steady' => []];
$impls = $meta['impls'] ?? ['ext', 'ext_fair', 'ext_poll', 'symfony', 'laravel'];
foreach (['burst', 'steady'] as $sc) {
    foreach ($impls as $impl) {
        $r = analyse($dir, $sc, $impl, $meta, $uncUs, $pacedUs);
        if ($r !== null) {
            $out[$sc][$impl] = $r;
        }
    }
}
file_put_contents("$dir/contended.json", json_encode($out, JSON_PRETTY_PRINT) . "\n");

$label = ['ext' => 'ext (wake on release)', 'ext_fair' => 'ext fair (fair => true)', 'ext_poll' => 'ext polling (wake_on_release off)',
    'symfony' => 'symfony/lock acquire(true)', 'laravel' => 'Laravel-style 250 ms poll'];
printf("uncontended lock+release (ext, median): %d us%s%s\n", $uncUs,
    $pacedUs ? sprintf("; paced as in a handoff (process and servers idle %d us before each): %d us", $meta['hold_us'] ?? 1000, $pacedUs) : '',
    $uncSrvUs !== null ? sprintf("; the servers' CPU per cycle: %d us", $uncSrvUs) : '');
// against the paced cycle: what the ideal is when every round trip of a handoff starts
// from idle, as it does (a waiter asleep in poll(), servers in epoll)
$pacedLine = function (string $sc, string $key, string $what) use ($out, $label): void {
    $parts = [];
    foreach ($out[$sc] as $impl => $r) {
        if (isset($r[$key])) $parts[] = ($label[$impl] ?? $impl) . ' ' . $r[$key];
    }
    if ($parts) printf("%s against the paced ideal (hold + the paced lock+release): %s\n", $what, implode(', ', $parts));
};
// cli cpu / srv cpu: CPU ms of the processes' measured part and of the Redis servers;
// floor x: their sum over the machine's cores, as a multiple of the ideal -- no
// protocol serves the burst faster than that on this machine; steady "cpu max": the
// rate that CPU per acquisition allows on these cores, as a share of the ideal;
// idle us: mean time the lock is free in a handoff (release() called -> the next
// lock() returns; the ideal's is one uncontended lock+release); srv us: the servers'
// CPU per acquisition (against the uncontended cycle's above)
if ($out['burst']) {
    $p = $meta['burst_procs'] ?? 50;
    printf("\nBurst: %d processes, each lock(wait) once, hold %d us, release, exit\n", $p, $meta['hold_us'] ?? 1000);
    printf("%-36s %9s %9s %7s %8s %8s %6s %6s %8s %5s %8s %8s %7s %7s %7s\n", 'impl', 'all ms', 'ideal ms', 'x ideal', 'p50 ms', 'p99 ms',
        'tmout', 'overl', 'cmd/acq', 'crash', 'cli cpu', 'srv cpu', 'floor x', 'att/acq', 'wk/acq');
    foreach ($out['burst'] as $impl => $r) {
        if (!empty($r['skipped'])) {
            printf("%-36s skipped (not installed)\n", $label[$impl] ?? $impl);
            continue;
        }
        printf("%-36s %9.1f %9.1f %7.2f %8.1f %8.1f %6d %6d %8s %5d %8.1f %8s %7.2f %7s %7s\n", $label[$impl] ?? $impl, $r['all_served_ms'] ?? 0,
            $r['ideal_ms'] ?? 0, $r['x_ideal'] ?? 0, $r['latency_ms_p50'] ?? 0, $r['latency_ms_p99'] ?? 0,
            $r['timeouts'], $r['overlaps'], $r['cmds_per_handoff'] ?? '-', $r['crashed'], $r['client_cpu_ms'],
            $r['redis_cpu_ms'] ?? '-', $r['cpu_floor_x_ideal'], $r['attempts_per_acq'] ?? '-', $r['wakeups_per_acq'] ?? '-');
    }    $pacedLine('burst', 'x_paced_ideal', 'x ideal');
}
if ($out['steady']) {
    printf("\nSteady: %d processes loop lock(wait) / hold %d us / release / %d us elsewhere, %.1f s\n",
        $meta['steady_procs'] ?? 8, $meta['hold_us'] ?? 1000, $meta['think_us'] ?? 5000, $meta['steady_seconds'] ?? 0);
    printf("%-36s %8s %8s %6s %9s %9s %6s %6s %6s %6s %8s %7s %7s %7s %7s %7s\n", 'impl', 'acq/s', 'ideal/s', 'ratio', 'hoff p50', 'hoff p99',
        'cross', 'fair', 'tmout', 'overl', 'cmd/acq', 'cpu max', 'att/acq', 'wk/acq', 'idle us', 'srv us');
    foreach ($out['steady'] as $impl => $r) {
        if (!empty($r['skipped'])) {
            printf("%-36s skipped (not installed)\n", $label[$impl] ?? $impl);
            continue;
        }
        printf("%-36s %8.1f %8.1f %6.3f %7.2fms %7.2fms %6.2f %6.2f %6d %6d %8s %7.2f %7s %7s %7d %7s\n", $label[$impl] ?? $impl,
            $r['acq_per_s'] ?? 0, $r['ideal_per_s'] ?? 0, $r['of_ideal'] ?? 0, $r['handoff_us_p50'] / 1000,
            $r['handoff_us_p99'] / 1000, $r['cross_share'], $r['fairness'], $r['timeouts'], $r['overlaps'],
            $r['cmds_per_handoff'] ?? '-', $r['cpu_ceiling_of_ideal'] ?? 0, $r['attempts_per_acq'] ?? '-', $r['wakeups_per_acq'] ?? '-',
            $r['idle_us_mean'], $r['redis_cpu_us_per_acq'] ?? '-');
    }    $pacedLine('steady', 'of_paced_ideal', 'ratio');
}
foreach ($meta['notes'] ?? [] as $note) {
    echo "note: $note\n";
}
