<?php
// on_lost delivery latency, to the LockLostException caught in a busy PHP loop:
//   validity   from the end of a lock's validity (the extension's own deadline timer);
//   extension  from the watchdog's failed extension: an auto_extend lock, 3 of the
//              5 nodes SIGSTOPped (by this script, by pid) just after an extension,
//              so that the next one times out; SIGCONT after each run.
//   php -d extension=modules/redlock.so bench/on_lost_latency.php [runs] [ttl_ms] [validity|extension|both]
// Nodes: REDLOCK_TEST_NODES and REDLOCK_NODES_DIR (tests/nodes.sh start 5; set -a;
// . $REDLOCK_NODES_DIR/env): the nodes of that directory only, signalled by the pid
// in their pid file once its command line shows the node's address.
//
// validity: its end is taken as (just after lock() returned) + remaining():
// remaining() counts whole ms, so each figure is exact to about 1 ms (an upper bound).
// extension: the pause comes once one extension has been answered by all 5
// (stats()['auto_extended'] grew); the failed extension is taken as the moment
// node 1 ran the next EVALSHA for the key (the stamp MONITOR gives it, its wall
// clock, turned into hrtime's with an offset taken once) plus the node timeout
// (50 ms: the paused nodes never answer, the fan-out gives up then). That
// EVALSHA left the watchdog a few tens of us earlier (more when node 1 waits
// for a core: then a figure comes out low, even below 0): the figures are a
// lower bound by that much. BENCH_VERBOSE=1 prints each run.
$nodes = explode(',', getenv('REDLOCK_TEST_NODES') ?: '');
if (!$nodes[0]) {
    fwrite(STDERR, "REDLOCK_TEST_NODES is not set\n");
    exit(2);
}
$runs = (int) ($argv[1] ?? 100);
$ttl = (int) ($argv[2] ?? 50);
$mode = $argv[3] ?? 'both';
if (!in_array($mode, ['validity', 'extension', 'both'], true)) {
    fwrite(STDERR, "mode: validity, extension or both\n");
    exit(2);
}
$rl = new RedLock(array_map(fn($a) => 'redis://' . $a, $nodes), ['retry_count' => 0]);

function report(string $what, array $lat, int $runs, int $ttl, string $extra = ''): void
{
    sort($lat);
    $pct = fn($p) => $lat[min(count($lat) - 1, (int) floor($p / 100 * count($lat)))];
    printf("on_lost 'throw', busy loop, %s, %d runs, ttl %d ms%s: p50 %.2f ms, p99 %.2f ms, max %.2f ms, min %.2f ms\n",
        $what, $runs, $ttl, $extra, $pct(50), $pct(99), end($lat), $lat[0]);
}

if ($mode !== 'extension') {
    $lat = [];
    for ($i = 0; $i < $runs; $i++) {
        $l = $rl->lock('bench:on_lost:' . getmypid() . ':' . $i, $ttl, ['on_lost' => 'throw']);
        if (!$l) {
            fwrite(STDERR, "lock failed\n");
            exit(1);
        }
        $end = hrtime(true) + $l->remaining() * 1e6;
        $limit = hrtime(true) + ($ttl + 2000) * 1e6;
        try {
            while (hrtime(true) < $limit) {
            }
            fwrite(STDERR, "no exception within ttl + 2 s\n");
            exit(1);
        } catch (RedLock\LockLostException $e) {
            $lat[] = (hrtime(true) - $end) / 1e6;
        }
    }
    report('from the validity\'s end', $lat, $runs, $ttl);
}
if ($mode === 'validity') {
    exit(0);
}

// ---- from the failed extension ----
if (count($nodes) !== 5) {
    fwrite(STDERR, "the extension figure needs 5 nodes\n");
    exit(2);
}
$dir = getenv('REDLOCK_NODES_DIR') ?: '';
$pids = [];
foreach ([3, 4, 5] as $n) {
    $pid = (int) @file_get_contents("$dir/node$n.pid");
    $cmd = $pid > 0 ? str_replace("\0", ' ', (string) @file_get_contents("/proc/$pid/cmdline")) : '';
    if (!preg_match('/(redis|valkey)-server/', $cmd) || !str_contains($cmd, $nodes[$n - 1])) {
        fwrite(STDERR, "node $n: no redis-server for {$nodes[$n - 1]} in $dir/node$n.pid\n");
        exit(2);
    }
    $pids[] = $pid;
}
$paused = false;
$resume = function () use ($pids, &$paused) {
    if (!$paused) {
        return;
    }
    foreach ($pids as $pid) {
        posix_kill($pid, SIGCONT);
    }
    $paused = false;
};
register_shutdown_function($resume); // also when this script fails
$timeout = 50; // the constructor's default node timeout
$ettl = max($ttl, 300); // room for an extension (ttl/3), the pause and a timed-out one before the validity ends
$mon = @stream_socket_client('tcp://' . $nodes[0], $errno, $errstr, 1.0);
if (!$mon) {
    fwrite(STDERR, "node 1: $errstr\n");
    exit(1);
}
fwrite($mon, "MONITOR\r\n");
stream_set_timeout($mon, 1);
if (trim((string) fgets($mon)) !== '+OK') {
    fwrite(STDERR, "node 1: MONITOR refused\n");
    exit(1);
}
stream_set_blocking($mon, false);
// node 1's MONITOR stamps each command with its wall clock (us): to hrtime(true)'s ns
// (same host; the offset is taken before each run, the smallest of a few samples)
function wall_minus_mono(): int
{
    $best = PHP_INT_MAX;
    for ($k = 0; $k < 20; $k++) {
        $m0 = hrtime(true);
        $w = (int) round(microtime(true) * 1e6) * 1000;
        $m1 = hrtime(true);
        $best = min($best, $w - intdiv($m0 + $m1, 2));
    }
    return $best;
}
$lat = [];
$early = 0;
for ($i = 0; count($lat) < $runs; $i++) {
    if ($early > $runs) {
        fwrite(STDERR, "too many runs lost before the pause\n");
        exit(1);
    }
    $key = 'bench:on_lost:ext:' . getmypid() . ':' . $i;
    $quoted = '"' . $key . '"';
    while (fread($mon, 65536) !== '') {
    }
    $l = $rl->lock($key, $ettl, ['on_lost' => 'throw', 'auto_extend' => true]);
    if (!$l) {
        fwrite(STDERR, "lock failed\n");
        exit(1);
    }
    $buf = '';
    $wall_minus_mono = wall_minus_mono();
    $ext0 = $rl->stats()['auto_extended'];
    $sent = null;
    $limit = hrtime(true) + ($ettl + 2000) * 1e6;
    try {
        while (hrtime(true) < $limit) {
            if (!$paused) {
                // one extension done (all 5 answered): pause 3 nodes before the next (ttl/3 later)
                if ($rl->stats()['auto_extended'] === $ext0) {
                    continue;
                }
                foreach ($pids as $pid) {
                    posix_kill($pid, SIGSTOP);
                }
                $paused = true;
                $paused_at = hrtime(true);
                continue;
            }
            $chunk = fread($mon, 65536);
            if ($chunk === '' || $chunk === false) {
                continue;
            }
            $buf .= $chunk;
            while (($p = strpos($buf, "\r\n")) !== false) {
                $line = substr($buf, 0, $p);
                $buf = substr($buf, $p + 2);
                // +<unix time> [db addr] "EVALSHA" "sha" "1" "key" ...: the next extension
                if (str_contains($line, '"EVALSHA"') && str_contains($line, $quoted)
                    && preg_match('/^\+(\d+)\.(\d{6}) /', $line, $m)) {
                    $at_node = ((int) $m[1] * 1000000 + (int) $m[2]) * 1000 - $wall_minus_mono;
                    if ($at_node > $paused_at) {
                        $sent = $at_node; // the last one before the exception: the one that failed
                    }
                }
            }
        }
        fwrite(STDERR, "no exception within ttl + 2 s\n");
        exit(1);
    } catch (RedLock\LockLostException $e) {
        $at = hrtime(true);
        $resume();
        if ($sent === null || !str_contains($e->getMessage(), 'extension failed')) {
            if (getenv("BENCH_VERBOSE")) fprintf(STDERR, "early: %s\n", $e->getMessage());
            $early++; // lost before the pause (a node still backing off from the last run): again
        } else {
            $lat[] = ($at - $sent) / 1e6 - $timeout;
            if (getenv("BENCH_VERBOSE")) fprintf(STDERR, "%.2f paused+%.2f sent+%.2f %s\n", end($lat), ($sent - $paused_at) / 1e6, ($at - $sent) / 1e6, substr($e->getMessage(), 0, 230));
        }
    }
    $l->release();
    usleep(300000); // the watchdog's connections to the resumed nodes settle
}
report('from the failed extension (3 of 5 nodes SIGSTOPped)', $lat, $runs, $ettl,
    ", timeout $timeout ms" . ($early ? ", $early runs again (lost before the pause)" : ''));
