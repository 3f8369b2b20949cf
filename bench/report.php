<?php
// bench/report.php — aggregates the raw outputs of bench/run.sh into a table on
// stdout, OUT/results.json, and OUT/latency.png (+ OUT/latency.gp, OUT/plot/*.dat).
//   php bench/report.php --work=OUT/raw --out=OUT --modes=a,b --impls=x,y
//       [--command=STR] [--short=0|1] [--ext=SO] [--plot=0|1] [--elapsed=S]
declare(strict_types=1);

$o = getopt('', ['work:', 'out:', 'modes:', 'impls:', 'command:', 'short:', 'ext:', 'plot:', 'elapsed:']);
$work = $o['work'];
$out = $o['out'];
$modes = explode(',', $o['modes']);
$impls = explode(',', $o['impls']);
$short = ($o['short'] ?? '0') === '1';

const LABEL = [
    'ext' => 'redlock ext (5 nodes, parallel)',
    'ext_fenced' => 'redlock ext, fencing => true',
    'ext_tls' => 'redlock ext over TLS (rediss://)',
    'floor' => 'floor: phpredis 1 node',
    'seq' => 'PHP sequential RedLock (5)',
    'symfony' => 'symfony/lock Combined(5)',
    'raw' => 'raw C core (5, no PHP)',
];
const MODE_DESC = [
    'lan' => 'every node behind a 1 ms-each-way delay proxy',
    'loopback' => 'all nodes direct on loopback',
    'slow' => 'loopback, node 5 behind a 10 ms-each-way proxy (20 ms RTT)',
    'down' => 'loopback, nodes 4 and 5 down',
];

function readj(string $f): ?array
{
    if (!is_file($f)) {
        return null;
    }
    $j = json_decode((string)file_get_contents($f), true);
    return is_array($j) ? $j : null;
}

/** nearest-rank percentile of a sorted list */
function pct(array $s, float $q): int
{
    $n = count($s);
    return (int)$s[max(0, min($n - 1, (int)ceil($q * $n) - 1))];
}

$results = [
    'meta' => [
        'command' => $o['command'] ?? 'bash bench/run.sh',
        'replot' => 'gnuplot ' . $out . '/latency.gp',
        'short' => $short,
        'date' => gmdate('c'),
        'php' => PHP_VERSION,
        'phpredis' => phpversion('redis') ?: null,
        'redis_server' => trim((string)shell_exec('redis-server --version 2>/dev/null')),
        'cpus' => (int)trim((string)shell_exec('nproc 2>/dev/null')),
        'kernel' => php_uname('r'),
        'extension' => ($o['ext'] ?? '') ?: null,
        'ttl_ms' => 10000,
        'elapsed_s' => (float)($o['elapsed'] ?? 0),
        'modes' => array_intersect_key(MODE_DESC, array_flip($modes)),
        'units' => 'latency in microseconds per lock+release cycle; cycles_per_s of one process; tput8 = total cycles/s of 8 processes',
    ],
    'modes' => [],
    'memory' => [],
    'callgrind' => [],
    'notes' => is_file("$work/notes.txt") ? array_values(array_filter(explode("\n", (string)file_get_contents("$work/notes.txt")))) : [],
];

@mkdir("$out/plot", 0777, true);
foreach (glob("$out/plot/*.dat") ?: [] as $f) {
    unlink($f);
}
$plotted = [];

foreach ($modes as $mode) {
    foreach ($impls as $impl) {
        $j = readj("$work/lat_{$mode}_$impl.json");
        if ($j === null) {
            continue;
        }
        if (empty($j['ok'])) {
            $results['modes'][$mode][$impl] = ['skipped' => !empty($j['skipped']), 'crashed' => !empty($j['crashed']),
                'note' => $j['note'] ?? null];
            continue;
        }
        $lat = $j['lat_us'];
        sort($lat);
        $n = count($lat);
        if ($n === 0) {
            continue;
        }
        $r = [
            'cycles' => $j['cycles'],
            'failed' => $j['failed'],
            'median_us' => pct($lat, 0.5),
            'p90_us' => pct($lat, 0.9),
            'p99_us' => pct($lat, 0.99),
            'max_us' => $lat[$n - 1],
            'min_us' => $lat[0],
            'mean_us' => round(array_sum($lat) / $n, 1),
            'cycles_per_s' => round($j['cycles'] / max(1e-9, $j['wall_s']), 1),
        ];
        if (isset($j['version'])) {
            $r['version'] = $j['version'];
        }
        if (isset($j['first_us'])) {
            $r['first_call_us'] = $j['first_us'];   // connects (+ TLS handshakes) + script loads
        }
        // 8-process throughput
        $tp = 0.0;
        $procs = 0;
        $tfail = 0;
        for ($w = 1; $w <= 8; $w++) {
            $t = readj("$work/tput_{$mode}_{$impl}_$w.json");
            if ($t && !empty($t['ok'])) {
                $tp += $t['cycles'] / max(1e-9, $t['wall_s']);
                $tfail += $t['failed'];
                $procs++;
            }
        }
        if ($procs > 0) {
            $r['tput8_cycles_per_s'] = round($tp, 1);
            $r['tput8_processes'] = $procs;
            $r['tput8_failed'] = $tfail;
        }
        $results['modes'][$mode][$impl] = $r;

        // CDF points for the plot: ≤ 400 quantiles + the tail
        $fh = fopen("$out/plot/lat_{$mode}_$impl.dat", 'w');
        fwrite($fh, "# $mode $impl: latency_us cumulative_fraction\n");
        $pts = 400;
        for ($i = 0; $i <= $pts; $i++) {
            $q = $i / $pts;
            $idx = min($n - 1, (int)floor($q * ($n - 1)));
            fprintf($fh, "%d %.5f\n", max(1, $lat[$idx]), ($idx + 1) / $n);
        }
        fclose($fh);
        $plotted[$mode][] = $impl;
    }
    // ratios to the floor
    $floor = $results['modes'][$mode]['floor'] ?? null;
    if ($floor && isset($floor['median_us'])) {
        foreach ($results['modes'][$mode] as $impl => &$r) {
            if (!isset($r['median_us'])) {
                continue;
            }
            $r['ratio_median_to_floor'] = round($r['median_us'] / max(1, $floor['median_us']), 2);
            $r['ratio_p99_to_floor'] = round($r['p99_us'] / max(1, $floor['p99_us']), 2);
            $r['ratio_cycles_per_s_to_floor'] = round($r['cycles_per_s'] / max(1e-9, $floor['cycles_per_s']), 3);
            if (isset($r['tput8_cycles_per_s'], $floor['tput8_cycles_per_s'])) {
                $r['ratio_tput8_to_floor'] = round($r['tput8_cycles_per_s'] / max(1e-9, $floor['tput8_cycles_per_s']), 3);
            }
        }
        unset($r);
    }
    // the cost of fencing: fenced cycle / unfenced cycle (4 vs 2 round trips)
    $ext = $results['modes'][$mode]['ext'] ?? null;
    $fenced = $results['modes'][$mode]['ext_fenced'] ?? null;
    if (isset($ext['median_us'], $fenced['median_us'])) {
        $results['modes'][$mode]['ext_fenced']['ratio_median_to_ext'] = round($fenced['median_us'] / max(1, $ext['median_us']), 2);
        $results['modes'][$mode]['ext_fenced']['ratio_p99_to_ext'] = round($fenced['p99_us'] / max(1, $ext['p99_us']), 2);
        if (isset($ext['tput8_cycles_per_s'], $fenced['tput8_cycles_per_s'])) {
            $results['modes'][$mode]['ext_fenced']['ratio_tput8_to_ext'] =
                round($fenced['tput8_cycles_per_s'] / max(1e-9, $ext['tput8_cycles_per_s']), 3);
        }
    }
}

// the cost of TLS: TLS cycle / plaintext cycle (target ≤ 1.5), and the first calls
foreach ($modes as $mode) {
    $ext = $results['modes'][$mode]['ext'] ?? null;
    $tls = $results['modes'][$mode]['ext_tls'] ?? null;
    if (isset($ext['median_us'], $tls['median_us'])) {
        $results['modes'][$mode]['ext_tls']['ratio_median_to_ext'] = round($tls['median_us'] / max(1, $ext['median_us']), 2);
        $results['modes'][$mode]['ext_tls']['ratio_p99_to_ext'] = round($tls['p99_us'] / max(1, $ext['p99_us']), 2);
        if (isset($ext['tput8_cycles_per_s'], $tls['tput8_cycles_per_s'])) {
            $results['modes'][$mode]['ext_tls']['ratio_tput8_to_ext'] =
                round($tls['tput8_cycles_per_s'] / max(1e-9, $ext['tput8_cycles_per_s']), 3);
        }
    }
}

// memory
foreach ($impls as $impl) {
    $m = readj("$work/mem_hold_$impl.json");
    if ($m && !empty($m['ok'])) {
        $results['memory']['bytes_per_held_lock'][$impl] = ['zend_heap' => $m['bytes_per_lock'], 'rss' => $m['rss_per_lock'] ?? null,
            'held' => $m['held']];
    }
}
if ($m = readj("$work/mem_request.json")) {
    $results['memory']['extension_per_request'] = $m;
}
// callgrind
foreach ($impls as $impl) {
    if ($c = readj("$work/callgrind_$impl.json")) {
        $results['callgrind'][$impl] = $c;
    }
}

file_put_contents("$out/results.json", json_encode($results, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES) . "\n");

// ---------------------------------------------------------------- table -----
$fmt = fn ($v, int $d = 0) => $v === null ? '-' : number_format((float)$v, $d, '.', '');
echo "\nredlock benchmark — lock+release cycle, distinct resources, TTL 10 s" . ($short ? ' (--short)' : '') . "\n";
printf("php %s, phpredis %s, %s, %d cpus\n\n", PHP_VERSION, $results['meta']['phpredis'] ?? '-',
    preg_replace('/ sha=.*/', '', $results['meta']['redis_server']), $results['meta']['cpus']);
$hdr = sprintf("%-9s %-32s %7s %5s %9s %9s %10s %8s %8s %10s %8s", 'mode', 'implementation', 'cycles', 'fail',
    'median µs', 'p99 µs', 'cycles/s', '×floor', '×fl p99', '8p cyc/s', '8p×fl');
echo $hdr, "\n", str_repeat('-', mb_strlen($hdr)), "\n";
foreach ($modes as $mode) {
    foreach ($impls as $impl) {
        $r = $results['modes'][$mode][$impl] ?? null;
        if ($r === null) {
            continue;
        }
        $label = LABEL[$impl] ?? $impl;
        if (!isset($r['median_us'])) {
            printf("%-9s %-32s %s\n", $mode, $label, !empty($r['crashed']) ? 'CRASHED' : ('skipped: ' . ($r['note'] ?? '')));
            continue;
        }
        printf("%-9s %-32s %7d %5d %9d %9d %10s %8s %8s %10s %8s\n", $mode, $label, $r['cycles'], $r['failed'],
            $r['median_us'], $r['p99_us'], $fmt($r['cycles_per_s']), $fmt($r['ratio_median_to_floor'] ?? null, 2),
            $fmt($r['ratio_p99_to_floor'] ?? null, 2), $fmt($r['tput8_cycles_per_s'] ?? null),
            $fmt($r['ratio_tput8_to_floor'] ?? null, 2));
    }
}
echo "\n×floor = median (or p99) latency / the floor's in the same mode; 8p = 8 processes at once, total cycles/s.\n";
foreach ($modes as $mode) {
    $r = $results['modes'][$mode]['ext_fenced'] ?? [];
    if (isset($r['ratio_median_to_ext'])) {
        printf("fencing cost (%s): fenced/unfenced lock+release = %s median, %s p99%s (round trips 4 vs 2)\n", $mode,
            $fmt($r['ratio_median_to_ext'], 2), $fmt($r['ratio_p99_to_ext'], 2),
            isset($r['ratio_tput8_to_ext']) ? ', 8p throughput ×' . $fmt($r['ratio_tput8_to_ext'], 2) : '');
    }
}
foreach ($modes as $mode) {
    $r = $results['modes'][$mode]['ext_tls'] ?? [];
    if (isset($r['ratio_median_to_ext'])) {
        printf("TLS cost (%s): TLS/plaintext lock+release = %s median, %s p99%s (target <= 1.5, persistent connections);"
            . " first call (connects%s + script loads): plaintext %s µs, TLS %s µs\n", $mode,
            $fmt($r['ratio_median_to_ext'], 2), $fmt($r['ratio_p99_to_ext'], 2),
            isset($r['ratio_tput8_to_ext']) ? ', 8p throughput ×' . $fmt($r['ratio_tput8_to_ext'], 2) : '',
            ' + TLS handshakes', $fmt($results['modes'][$mode]['ext']['first_call_us'] ?? null),
            $fmt($r['first_call_us'] ?? null));
    }
}
foreach ($results['meta']['modes'] as $m => $d) {
    echo "  $m: $d\n";
}
if ($results['memory']) {
    echo "\nmemory\n";
    foreach ($results['memory']['bytes_per_held_lock'] ?? [] as $impl => $m) {
        printf("  %-32s %8s B/held lock (Zend heap), %8s B (RSS), %d locks held\n", LABEL[$impl] ?? $impl,
            $fmt($m['zend_heap'], 1), $fmt($m['rss'], 1), $m['held']);
    }
    if ($m = $results['memory']['extension_per_request'] ?? null) {
        printf("  extension loaded, per request: %+d B Zend heap at startup (%+d B RSS); %+d B heap after new RedLock(5 nodes) + 1 cycle\n",
            $m['startup_heap_overhead'], $m['startup_rss_overhead'], $m['heap_after_construct_and_cycle']);
    }
}
if ($results['callgrind']) {
    echo "\ncallgrind (instructions of the client process per cycle, (Ir(220) - Ir(20)) / 200)\n";
    foreach ($results['callgrind'] as $impl => $c) {
        printf("  %-32s %10s instructions/cycle\n", LABEL[$impl] ?? $impl, number_format($c['ir_per_cycle']));
    }
}
foreach ($results['notes'] as $n) {
    echo "note: $n\n";
}

// ----------------------------------------------------------------- plot -----
$plotOn = ($o['plot'] ?? '1') === '1';
$gp = "$out/latency.gp";
$pm = array_values(array_filter($modes, fn ($m) => !empty($plotted[$m])));
if ($pm) {
    $cols = count($pm) > 1 ? 2 : 1;
    $rows = (int)ceil(count($pm) / $cols);
    $s = "# latency CDFs of bench/run.sh — re-plot: gnuplot $gp\n";
    $s .= "# reproduce the data: " . $results['meta']['command'] . "\n";
    $s .= sprintf("set terminal pngcairo size %d,%d font 'sans,10'\n", 720 * $cols, 500 * $rows);
    $s .= "set output '$out/latency.png'\n";
    $s .= "set multiplot layout $rows,$cols title 'redlock: lock+release latency, CDF per implementation (" .
        addslashes($results['meta']['command']) . ")'\n";
    $s .= "set logscale x\nunset xlabel\nset ylabel 'fraction of cycles ≤ x'\nset yrange [0:1]\n";
    $s .= "set grid xtics ytics mxtics\nset key below font ',9'\n";
    $colors = ['ext' => '#d62728', 'ext_tls' => '#8c564b', 'floor' => '#2ca02c', 'seq' => '#1f77b4', 'symfony' => '#9467bd', 'raw' => '#ff7f0e'];
    foreach ($pm as $mode) {
        $s .= "set title '" . $mode . ': ' . (MODE_DESC[$mode] ?? '') . " — x: µs per lock+release cycle (log)'\n";
        $parts = [];
        foreach ($plotted[$mode] as $impl) {
            $r = $results['modes'][$mode][$impl];
            $parts[] = sprintf("'%s/plot/lat_%s_%s.dat' using 1:2 with lines lw 2 lc rgb '%s' title '%s (p50 %d, p99 %d)'",
                $out, $mode, $impl, $colors[$impl] ?? '#000000', LABEL[$impl] ?? $impl, $r['median_us'], $r['p99_us']);
        }
        $s .= 'plot ' . implode(", \\\n     ", $parts) . "\n";
    }
    $s .= "unset multiplot\n";
    file_put_contents($gp, $s);
    if ($plotOn) {
        if (trim((string)shell_exec('command -v gnuplot')) === '') {
            echo "note: gnuplot not installed (bash bench/deps.sh): no latency.png; data in $out/plot\n";
        } else {
            exec('gnuplot ' . escapeshellarg($gp) . ' 2>&1', $gout, $rc);
            if ($rc !== 0) {
                echo "note: gnuplot failed: " . implode(' ', $gout) . "\n";
            }
        }
    }
}
echo "\nresults: $out/results.json" . (is_file("$out/latency.png") && $plotOn ? ", plot: $out/latency.png" : '') . "\n";
echo "reproduce: " . $results['meta']['command'] . "\n";
