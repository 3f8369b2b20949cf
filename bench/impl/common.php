<?php
// Shared driver of every PHP implementation of the benchmark.
//
//   php impl/X.php --nodes=h:p,h:p,... [--cycles=N] [--seconds=S] [--warmup=W]
//                  [--prefix=P] [--start-at=UNIX_TS] [--no-lat] [--hold=N]
//
// Runs W warm-up cycles, then lock+release cycles on distinct resources until N
// cycles or S seconds (whichever first; both bounded), and prints one JSON object:
//   {"impl", "ok", "cycles", "failed", "wall_s", "lat_us": [per-cycle µs...], "first_us"}
// first_us: the first warm-up cycle (connects, TLS handshakes, script loads), when W > 0.
// A cycle "fails" when the lock was not granted or the release was not confirmed;
// failed cycles are timed too. --hold=N instead measures memory per held lock.
// --start-at makes several processes start together (throughput runs).
declare(strict_types=1);

function bench_args(): array
{
    $o = getopt('', ['nodes:', 'cycles:', 'seconds:', 'warmup:', 'prefix:', 'start-at:', 'no-lat', 'hold:']);
    if (!isset($o['nodes'])) {
        fwrite(STDERR, "missing --nodes\n");
        exit(2);
    }
    return [
        'nodes' => explode(',', $o['nodes']),
        'cycles' => max(1, min(10_000_000, (int)($o['cycles'] ?? 1000))),
        'seconds' => max(0.01, min(600.0, (float)($o['seconds'] ?? 10))),
        'warmup' => max(0, min(100_000, (int)($o['warmup'] ?? 50))),
        'prefix' => $o['prefix'] ?? ('bench:' . getmypid() . ':' . bin2hex(random_bytes(3)) . ':'),
        'start_at' => isset($o['start-at']) ? (float)$o['start-at'] : 0.0,
        'lat' => !isset($o['no-lat']),
        'hold' => (int)($o['hold'] ?? 0),
    ];
}

function bench_hostport(string $n): array
{
    $i = strrpos($n, ':');
    return [substr($n, 0, $i), (int)substr($n, $i + 1)];
}

function bench_rss(): int
{
    return preg_match('/VmRSS:\s+(\d+)/', (string)@file_get_contents('/proc/self/status'), $m) ? (int)$m[1] * 1024 : 0;
}

/** Print a "skipped" result (library not installed, extension not built...). */
function bench_skip(string $impl, string $why): never
{
    echo json_encode(['impl' => $impl, 'ok' => false, 'skipped' => true, 'note' => $why]), "\n";
    exit(0);
}

/**
 * $lock(string $resource): mixed  returns a handle, or null/false when not granted
 * $release(mixed $handle): bool
 */
function bench_run(string $impl, array $a, callable $lock, callable $release, array $extra = []): void
{
    $p = $a['prefix'];
    if ($a['hold'] > 0) {
        // memory per held lock: hold N locks at once, Zend heap delta / N
        $lock($p . 'warm');                  // autoload, connect, script load...
        $keep = [];
        gc_collect_cycles();
        $r0 = bench_rss();
        $m0 = memory_get_usage();
        for ($i = 0; $i < $a['hold']; $i++) {
            $h = $lock($p . 'h' . $i);
            if (!$h) {
                fwrite(STDERR, "$impl: could not hold lock $i\n");
                exit(1);
            }
            $keep[] = $h;
        }
        $m1 = memory_get_usage();
        $r1 = bench_rss();
        $bytes = ($m1 - $m0) / $a['hold'];
        foreach ($keep as $h) {
            $release($h);
        }
        echo json_encode(['impl' => $impl, 'ok' => true, 'held' => $a['hold'], 'bytes_per_lock' => round($bytes, 1),
            'rss_per_lock' => round(($r1 - $r0) / $a['hold'], 1)] + $extra), "\n";
        return;
    }
    $failed = 0;
    for ($i = 0; $i < $a['warmup']; $i++) {
        $t = hrtime(true);
        $h = $lock($p . 'w' . $i);
        if ($h) {
            $release($h);
        }
        if ($i === 0) {
            // the first call of the process: connects (and TLS handshakes), script loads
            $extra += ['first_us' => intdiv(hrtime(true) - $t, 1000)];
        }
    }
    if ($a['start_at'] > 0) {
        $d = $a['start_at'] - microtime(true);
        if ($d > 0 && $d < 60) {
            usleep((int)($d * 1e6));
        }
    }
    $lat = [];
    $n = $a['cycles'];
    $deadline = hrtime(true) + (int)($a['seconds'] * 1e9);
    $t0 = hrtime(true);
    $done = 0;
    for ($i = 0; $i < $n; $i++) {
        $t = hrtime(true);
        $h = $lock($p . $i);
        $ok = $h && $release($h);
        $e = hrtime(true);
        if (!$ok) {
            $failed++;
        }
        if ($a['lat']) {
            $lat[] = intdiv($e - $t, 1000);
        }
        $done++;
        if ($e >= $deadline) {
            break;
        }
    }
    $wall = (hrtime(true) - $t0) / 1e9;
    echo json_encode(['impl' => $impl, 'ok' => true, 'cycles' => $done, 'failed' => $failed,
        'wall_s' => round($wall, 6), 'lat_us' => $lat] + $extra), "\n";
}
