<?php
// One process of a contended scenario (bench/contended.sh): every process of a run
// wants the SAME resource, with a blocking/waiting acquire.
//
//   php impl/contended.php --impl=ext|ext_poll|symfony|laravel --nodes=h:p,... --resource=R
//       --start-at=UNIX_TS [--once] [--seconds=S] [--hold-us=1000] [--think-us=5000]
//       [--wait-ms=30000] [--uncontended=N]
//
// --once: lock, hold, release, exit (the burst); else loop until --seconds (steady).
// --linger=FILE: after printing, stay (idle) until FILE exists (at most 60 s): like an FPM
//   worker whose request ended, the process does not exit inside the measured chain (a
//   CLI process's exit burns CPU the next holder and waiter need).
// --uncontended=N: N lock+release cycles on distinct resources, nobody else around:
//   the "uncontended lock+release time" of the ideal (median, µs); then N/2 paced ones
//   (idle for --hold-us before lock(), hold, release(): a handoff's conditions), their
//   lock()+release() time (median, µs) as paced_us.
// Prints one JSON object: {"impl","pid","events":[[t_req,t_acq,t_rel0,t_rel1],...],
// "timeouts","errors"}; times in µs of the monotonic clock (hrtime), the same clock
// in every process, so the report can order acquisitions across processes.
//
// Implementations:
//   ext       RedLock::lock(wait) with wake_on_release (default)
//   ext_poll  the same with wake_on_release => false (retry_delay 200 ms + jitter 100 ms)
//   ext_fair  the same (wake on release) with fair => true (docs/api.md "Fair waiting")
//   symfony   symfony/lock Lock::acquire(true) over a CombinedStore of N RedisStore
//             (ConsensusStrategy); Symfony retries every 100 ± 10 ms
//   laravel   Laravel's Cache::lock()->block() pattern on ONE node: SET NX PX, else
//             usleep(250 ms); compare-and-delete release (phpredis)
declare(strict_types=1);

$o = getopt('', ['impl:', 'nodes:', 'resource:', 'start-at:', 'once', 'seconds:', 'hold-us:', 'think-us:',
    'wait-ms:', 'uncontended:', 'linger:']);
$impl = $o['impl'] ?? 'ext';
$nodes = explode(',', $o['nodes'] ?? '');
$res = $o['resource'] ?? 'bench:contended';
$startAt = (float)($o['start-at'] ?? 0);
$once = isset($o['once']);
$seconds = max(0.1, min(600.0, (float)($o['seconds'] ?? 5)));
$holdUs = max(0, (int)($o['hold-us'] ?? 1000));
$thinkUs = max(0, (int)($o['think-us'] ?? 5000));
$waitMs = max(1, (int)($o['wait-ms'] ?? 30000));
$unc = (int)($o['uncontended'] ?? 0);
$linger = $o['linger'] ?? '';
const TTL_MS = 10000;

function now_us(): int
{
    return intdiv(hrtime(true), 1000);
}

function hostport(string $n): array
{
    $i = strrpos($n, ':');
    return [substr($n, 0, $i), (int)substr($n, $i + 1)];
}

/** Hold for $us on the CPU (a sleep would be stretched by the scheduler on a loaded machine). */
function hold(int $us): void
{
    $end = hrtime(true) + $us * 1000;
    while (hrtime(true) < $end) {
    }
}

// ---- the implementations: $lock(string $res): handle|null, $release(handle): void ----
switch ($impl) {
    case 'ext':
    case 'ext_poll':
    case 'ext_fair':
        if (!extension_loaded('redlock')) {
            fwrite(STDERR, "redlock not loaded\n");
            exit(1);
        }
        $rl = new RedLock($nodes, ['wake_on_release' => $impl !== 'ext_poll', 'fair' => $impl === 'ext_fair']);
        $lock = fn (string $r, int $wait) => $rl->lock($r, TTL_MS, $wait > 0 ? ['wait' => $wait] : ['retry_count' => 0]);
        $release = fn ($h) => $h->release();
        break;
    case 'symfony':
        $auto = __DIR__ . '/../vendor/autoload.php';
        if (is_file($auto)) {
            require $auto;
        } elseif (is_file('/usr/share/php/Symfony/Component/Lock/autoload.php')) {
            require '/usr/share/php/Symfony/Component/Lock/autoload.php';
        }
        if (!class_exists(Symfony\Component\Lock\Store\CombinedStore::class) || !extension_loaded('redis')) {
            echo json_encode(['impl' => $impl, 'skipped' => true]), "\n";
            exit(0);
        }
        $stores = [];
        foreach ($nodes as $n) {
            [$h, $p] = hostport($n);
            $r = new Redis();
            $r->pconnect($h, $p, 0.05);
            $r->setOption(Redis::OPT_READ_TIMEOUT, 0.05);
            $stores[] = new Symfony\Component\Lock\Store\RedisStore($r, TTL_MS / 1000);
        }
        $factory = new Symfony\Component\Lock\LockFactory(new Symfony\Component\Lock\Store\CombinedStore(
            $stores, new Symfony\Component\Lock\Strategy\ConsensusStrategy()));
        $lock = function (string $r, int $wait) use ($factory) {
            $l = $factory->createLock($r, TTL_MS / 1000, false);
            // acquire(true) has no deadline of its own: the scenarios' locks are short
            return $l->acquire($wait > 0) ? $l : null;
        };
        $release = fn ($l) => $l->release();
        break;
    case 'laravel':
        if (!extension_loaded('redis')) {
            echo json_encode(['impl' => $impl, 'skipped' => true]), "\n";
            exit(0);
        }
        [$h, $p] = hostport($nodes[0]);
        $redis = new Redis();
        $redis->pconnect($h, $p, 0.05);
        $REL = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
        $lock = function (string $r, int $wait) use ($redis) {
            $tok = bin2hex(random_bytes(16));
            $end = hrtime(true) + $wait * 1000000;
            while (!$redis->set($r, $tok, ['NX', 'PX' => TTL_MS])) {
                if ($wait <= 0 || hrtime(true) >= $end) {
                    return null;
                }
                usleep(250 * 1000);   // Laravel's block(): sleepMilliseconds = 250
            }
            return [$r, $tok];
        };
        $release = fn ($hd) => $redis->eval($REL, $hd, 1);
        break;
    default:
        fwrite(STDERR, "unknown impl $impl\n");
        exit(2);
}

if ($unc > 0) {
    $lat = [];
    for ($i = 0; $i < $unc + 20; $i++) {
        $t = hrtime(true);
        $h = $lock($res . ':u' . getmypid() . ':' . $i, 0);
        if ($h) {
            $release($h);
        }
        if ($i >= 20) {
            $lat[] = intdiv(hrtime(true) - $t, 1000);
        }
    }
    sort($lat);
    // paced: the same cycle as a handoff meets it: the process and the servers idle for the
    // hold time before the lock() (a waiter asleep in poll(), servers in epoll), then the
    // hold on the CPU, then the release() (servers idle for the hold again); only lock()
    // and release() timed. On a VM whose idle CPUs halt, waking costs each round trip more
    // than a back-to-back loop shows.
    $paced = [];
    for ($i = 0; $i < intdiv($unc, 2) + 10; $i++) {
        usleep(max(1, $holdUs));
        $t = hrtime(true);
        $h = $lock($res . ':p' . getmypid() . ':' . $i, 0);
        $t1 = hrtime(true);
        hold($holdUs);
        $t2 = hrtime(true);
        if ($h) {
            $release($h);
        }
        if ($i >= 10) {
            $paced[] = intdiv($t1 - $t + hrtime(true) - $t2, 1000);
        }
    }
    sort($paced);
    echo json_encode(['impl' => $impl, 'uncontended_us' => $lat[intdiv(count($lat), 2)], 'n' => count($lat),
        'paced_us' => $paced[intdiv(count($paced), 2)], 'paced_n' => count($paced)]), "\n";
    exit(0);
}

// warm up: connections (and for ext the subscriber connections) before the start
$h = $lock($res . ':warm' . getmypid(), 1000);
if ($h) {
    $release($h);
}
if ($startAt > 0) {
    $d = $startAt - microtime(true);
    if ($d > 0 && $d < 60) {
        usleep((int)($d * 1e6));
    }
}
function cpu_ms(): float
{
    $ru = getrusage();
    return ($ru['ru_utime.tv_sec'] + $ru['ru_stime.tv_sec']) * 1e3 + ($ru['ru_utime.tv_usec'] + $ru['ru_stime.tv_usec']) / 1e3;
}
/** voluntary context switches so far: each a sleep (poll, usleep) that ended */
function wakeups(): int
{
    return preg_match('/^voluntary_ctxt_switches:\s+(\d+)/m', (string)@file_get_contents('/proc/self/status'), $m) ? (int)$m[1] : 0;
}
// what the measured part costs this process (not PHP's start nor the warm-up)
$cpu0 = cpu_ms();
$cs0 = wakeups();
$st0 = isset($rl) ? $rl->stats() : null;
$events = [];
$timeouts = $errors = 0;
$end = hrtime(true) + (int)($seconds * 1e9);
do {
    $t0 = now_us();
    try {
        $h = $lock($res, $waitMs);
    } catch (Throwable $e) {
        $errors++;
        $h = null;
    }
    $t1 = now_us();
    if (!$h) {
        $timeouts++;
        continue;
    }
    hold($holdUs);
    $t2 = now_us();
    try {
        $release($h);
    } catch (Throwable $e) {
        $errors++;
    }
    $t3 = now_us();
    $events[] = [$t0, $t1, $t2, $t3];
    if (!$once && $thinkUs > 0) {
        usleep($thinkUs);   // elsewhere: off the CPU, like a request waiting on I/O
    }
} while (!$once && hrtime(true) < $end);
$cpuRun = cpu_ms() - $cpu0;
$cs = wakeups() - $cs0;
// the extension's own counts (stats()): attempts sent, waits a release ended
$st1 = isset($rl) ? $rl->stats() : null;
echo json_encode(['impl' => $impl, 'pid' => getmypid(), 'events' => $events, 'timeouts' => $timeouts,
    'errors' => $errors, 'wakeups' => $cs, 'cpu_ms' => round($cpuRun, 2),
    'lib_attempts' => $st1 ? $st1['attempts'] - $st0['attempts'] : null,
    'lib_wakeups' => $st1 ? $st1['wakeups'] - $st0['wakeups'] : null]), "\n";
if ($linger !== '') {
    fflush(STDOUT);
    for ($i = 0; $i < 1200 && !file_exists($linger); $i++) {
        usleep(50000);
    }
}
