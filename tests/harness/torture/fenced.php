<?php
// fenced.php -- fenced-storage torture test of the redlock extension (driven by fenced.sh).
//
//   php -n -d extension=redlock.so fenced.php worker ID END_UNIX_TIME OUT_JSON PID_FILE
//       one contending process: fenced lock() of ONE resource with a short TTL, then,
//       inside the critical section, a read-modify-write of a counter kept on the AUX
//       node ("the storage"), with a pause-able window between the read and the write.
//       FENCED_MODE=check: the storage accepts a read or a write only when its fence is
//       >= the highest fence it has seen (one Lua script each); FENCED_MODE=nocheck:
//       plain GET and SET. Writes its figures (and every acquisition's time span and
//       fence) as JSON.
//   php -n fenced.php inject END_UNIX_TIME OUT_JSON PID_DIR
//       the injector: picks a worker that is inside its critical section, SIGSTOPs it
//       for longer than the TTL, SIGCONTs it; only pids the workers wrote to PID_DIR.
//   php -n fenced.php check OUT_DIR MODE
//       reads the workers' and the injector's JSON and the storage, prints the figures
//       and "mode checks: P passed, F failed"; exit 0 when every check of the mode passed.
//   php -n fenced.php reset
//       clears the run's keys on AUX.
//
// Environment: REDLOCK_TEST_NODES, REDLOCK_TEST_AUX (tests/nodes.sh env), FENCED_RUN (key
// namespace), FENCED_MODE (check | nocheck), FENCED_TTL (ms, default 300).
//
// AUX connection, JSON reports and exit codes: tests/harness/torture/common.php (shared with torture.php).

declare(strict_types=1);

require __DIR__ . '/common.php';

const TAG = 'fenced';
const AUX_TIMEOUT = 5.0;
const RESOURCE = 'fenced:resource';

// The storage's fence check, as docs/safety.md "Fencing tokens: what the storage must do" describes it: an operation with a fence
// lower than the highest seen is refused; the read also records its fence, so a holder
// whose lock expired between its read and its write cannot overwrite a newer holder's
// result computed from the same value.
const READ_SCRIPT = <<<'LUA'
local mf = tonumber(redis.call('get', KEYS[2]) or '0')
local f = tonumber(ARGV[1])
if f < mf then return -1 end
redis.call('set', KEYS[2], ARGV[1])
return tonumber(redis.call('get', KEYS[1]) or '0')
LUA;
const WRITE_SCRIPT = <<<'LUA'
local mf = tonumber(redis.call('get', KEYS[2]) or '0')
local f = tonumber(ARGV[1])
if f < mf then return 0 end
redis.call('set', KEYS[2], ARGV[1])
redis.call('set', KEYS[1], ARGV[2])
return 1
LUA;

function run_id(): string
{
    return getenv('FENCED_RUN') ?: 'default';
}

/** [data, highest fence seen, set of pids inside their critical section] */
function keys(): array
{
    $run = run_id();
    return ["fenced:$run:data", "fenced:$run:maxfence", "fenced:$run:incs"];
}

function ttl(): int
{
    return (int) (getenv('FENCED_TTL') ?: 300);
}

function worker(int $id, float $end, string $out, string $pidFile): int
{
    [$dataKey, $maxKey, $csKey] = keys();
    $check = getenv('FENCED_MODE') !== 'nocheck';
    $ttl = ttl();
    file_put_contents($pidFile, (string) getmypid());
    $fig = [
        'id' => $id, 'pid' => getmypid(), 'attempts' => 0, 'acquired' => 0, 'nulls' => 0,
        'quorum_exceptions' => 0, 'other_exceptions' => 0, 'messages' => [], 'invalid_at_entry' => 0,
        'reads_rejected' => 0, 'writes_accepted' => 0, 'writes_rejected' => 0, 'no_fence' => 0,
        'own_order_violations' => 0, 'spans' => [],
    ];
    $rl = new RedLock(rl_nodes(), [
        'prefix' => 'fenced:' . run_id() . ':', 'fencing' => true,
        'connect_timeout' => 100, 'timeout' => 100,
        'retry_delay' => 5, 'retry_jitter' => 10, 'wait' => 2000,
    ]);
    $aux = aux();
    $last = 0;
    $flush = function () use (&$fig, $out): void {
        write_json($out, $fig);
    };
    try {
        while (microtime(true) < $end) {
            $fig['attempts']++;
            $t0 = hrtime(true);
            try {
                $lock = $rl->lock(RESOURCE, $ttl);
            } catch (RedLock\QuorumException $e) {
                $fig['quorum_exceptions']++;
                continue;
            }
            $t1 = hrtime(true);
            if ($lock === null) {
                $fig['nulls']++;
                continue;
            }
            $fig['acquired']++;
            $fence = $lock->fence;
            if (!is_int($fence) || $fence < 1) {
                $fig['no_fence']++;
                $lock->release();
                continue;
            }
            // a process's own lock() calls are sequential: its fences must grow
            if ($fence <= $last) {
                $fig['own_order_violations']++;
            }
            $last = $fence;
            $fig['spans'][] = [$t0, $t1, $fence];
            if (!$lock->isValid()) {
                $fig['invalid_at_entry']++;   // a careful client does not start
                $lock->release();
                continue;
            }
            // ---- critical section: the injector may stop us anywhere in here ----
            $aux->cmd('SADD', $csKey, (string) getmypid());
            $v = $check ? $aux->cmd('EVAL', READ_SCRIPT, 2, $dataKey, $maxKey, $fence)
                        : (int) $aux->cmd('GET', $dataKey);
            if ($v instanceof RlRedisError) {
                throw new RuntimeException("AUX read: $v");
            }
            if ($v === -1) {
                $fig['reads_rejected']++;
            } else {
                usleep(random_int(5000, 20000));   // "work" between the read and the write
                $ok = $check ? $aux->cmd('EVAL', WRITE_SCRIPT, 2, $dataKey, $maxKey, $fence, (string) ($v + 1))
                             : ($aux->cmd('SET', $dataKey, (string) ($v + 1)) === 'OK' ? 1 : 0);
                if ($ok instanceof RlRedisError) {
                    throw new RuntimeException("AUX write: $ok");
                }
                $ok === 1 ? $fig['writes_accepted']++ : $fig['writes_rejected']++;
            }
            $aux->cmd('SREM', $csKey, (string) getmypid());
            // ---- end of critical section ----
            $lock->release();
        }
    } catch (Throwable $e) {
        $fig['other_exceptions']++;
        $fig['messages'][] = get_class($e) . ': ' . $e->getMessage();
        $flush();
        return 1;
    }
    $flush();
    return 0;
}

function inject(float $end, string $out, string $pidDir): int
{
    [, , $csKey] = keys();
    $ttl = ttl();
    $fig = ['pauses' => 0, 'pauses_in_cs' => 0, 'max_pause_ms' => 0, 'min_pause_ms' => 0];
    $stopped = null;
    // posix_kill when loaded (fenced.sh loads it): no shell between the look and the stop
    $kill = function (int $pid, string $sig): bool {
        if (function_exists('posix_kill')) {
            return posix_kill($pid, $sig === 'STOP' ? SIGSTOP : SIGCONT);
        }
        exec("kill -$sig $pid 2>/dev/null", $o, $rc);
        return $rc === 0;
    };
    $cont = function () use (&$stopped, $kill): void {
        if ($stopped !== null) {
            $kill((int) $stopped, 'CONT');
            $stopped = null;
        }
    };
    pcntl_async_signals(true);
    pcntl_signal(SIGTERM, function () use ($cont) { $cont(); exit(0); });
    $aux = aux();
    while (microtime(true) < $end) {
        usleep(random_int(100000, 300000));
        // only the workers of this run, by the pids they wrote themselves
        $allowed = [];
        foreach (glob("$pidDir/worker-*.pid") as $f) {
            $allowed[(int) file_get_contents($f)] = true;
        }
        $in = $aux->cmd('SMEMBERS', $csKey);
        $cands = is_array($in) ? array_values(array_filter(array_map('intval', $in), fn($p) => isset($allowed[$p]))) : [];
        if (!$cands) {
            continue;
        }
        $pid = $cands[array_rand($cands)];
        if (!$kill($pid, 'STOP')) {
            continue;
        }
        $stopped = $pid;
        $fig['pauses']++;
        // still inside after the stop (it cannot leave while stopped)?
        $now = $aux->cmd('SISMEMBER', $csKey, (string) $pid);
        if ($now === 1) {
            $fig['pauses_in_cs']++;
        }
        $ms = random_int($ttl + 100, 2 * $ttl + 300);   // longer than the TTL
        usleep($ms * 1000);
        $cont();
        $fig['max_pause_ms'] = max($fig['max_pause_ms'], $ms);
        $fig['min_pause_ms'] = $fig['min_pause_ms'] ? min($fig['min_pause_ms'], $ms) : $ms;
        file_put_contents($out, json_encode($fig));
    }
    $cont();
    file_put_contents($out, json_encode($fig));
    return 0;
}

function check(string $dir, string $mode): int
{
    [$dataKey, $maxKey] = keys();
    $spans = [];
    $problems = [];
    [$reports, $sum] = read_reports($dir, $problems);
    $workers = count($reports);
    foreach ($reports as $w) {
        foreach ($w['spans'] as $s) {
            $spans[] = $s;
        }
        foreach (array_slice($w['messages'], 0, 3) as $m) {
            echo "  worker {$w['id']}: $m\n";
        }
    }
    $expected = (int) @file_get_contents("$dir/workers");
    foreach (exit_codes($dir) as $id => $rc) {
        if ($rc !== 0) {
            $problems[] = "worker $id exited with $rc";
        }
    }
    if ($expected === 0 || $workers !== $expected) {
        $problems[] = "expected $expected worker reports, got $workers";
    }
    $inj = json_decode((string) @file_get_contents("$dir/injector.json"), true) ?: [];

    // the guarantee across processes (one monotonic clock): if B's lock() started after
    // A's lock() returned, B's fence is larger
    usort($spans, fn($a, $b) => $a[1] <=> $b[1]);
    $byStart = $spans;
    usort($byStart, fn($a, $b) => $a[0] <=> $b[0]);
    $orderViolations = 0;
    $maxEnded = 0;
    $i = 0;
    foreach ($byStart as $b) {
        while ($i < count($spans) && $spans[$i][1] < $b[0]) {
            $maxEnded = max($maxEnded, $spans[$i][2]);
            $i++;
        }
        if ($b[2] <= $maxEnded) {
            $orderViolations++;
        }
    }
    $v = aux()->cmd('GET', $dataKey);
    $final = $v === null ? 0 : (int) $v;
    $accepted = $sum['writes_accepted'] ?? 0;
    $lost = $accepted - $final;
    $stale = ($sum['writes_rejected'] ?? 0) + ($sum['reads_rejected'] ?? 0);

    printf("mode:                   %s\n", $mode === 'check'
        ? 'check (the storage refuses fences below the highest seen)'
        : 'nocheck (plain GET/SET: this run must LOSE updates)');
    printf("workers:                %d\n", $workers);
    printf("acquisitions:           %d (attempts %d, nulls %d, quorum exceptions %d)\n", $sum['acquired'] ?? 0,
        $sum['attempts'] ?? 0, $sum['nulls'] ?? 0, $sum['quorum_exceptions'] ?? 0);
    printf("invalid at entry:       %d\n", $sum['invalid_at_entry'] ?? 0);
    printf("pauses (SIGSTOP > TTL): %d, %d of them inside a critical section, %d-%d ms\n", $inj['pauses'] ?? 0,
        $inj['pauses_in_cs'] ?? 0, $inj['min_pause_ms'] ?? 0, $inj['max_pause_ms'] ?? 0);
    printf("writes accepted:        %d\n", $accepted);
    printf("stale writes rejected:  %d (stale reads rejected %d)\n", $sum['writes_rejected'] ?? 0,
        $sum['reads_rejected'] ?? 0);
    printf("counter in the storage: %d\n", $final);
    printf("lost updates:           %d\n", $lost);
    printf("fence order violations: %d across processes, %d within a process; locks without fence %d\n",
        $orderViolations, $sum['own_order_violations'] ?? 0, $sum['no_fence'] ?? 0);

    $checks = [];
    $checks['no worker failed'] = !$problems && ($sum['other_exceptions'] ?? 0) === 0;
    $checks['fences ordered (lock() after return => larger), all present'] =
        $orderViolations === 0 && ($sum['own_order_violations'] ?? 0) === 0 && ($sum['no_fence'] ?? 0) === 0;
    $checks['a worker was paused inside its critical section'] = ($inj['pauses_in_cs'] ?? 0) > 0;
    if ($mode === 'check') {
        $checks['0 lost updates'] = $lost === 0;
        $checks['the storage rejected stale operations (the pauses mattered)'] = $stale > 0;
    } else {
        $checks['updates lost without the storage check'] = $lost > 0;
    }
    foreach ($problems as $p) {
        echo "  problem: $p\n";
    }
    $p = $f = 0;
    foreach ($checks as $name => $ok) {
        echo ($ok ? '  ok:   ' : '  FAIL: '), $name, "\n";
        $ok ? $p++ : $f++;
    }
    echo "mode checks: $p passed, $f failed\n";
    return $f ? 1 : 0;
}

$cmd = $argv[1] ?? '';
switch ($cmd) {
    case 'worker':
        if ($argc === 6) {
            exit(worker((int) $argv[2], (float) $argv[3], $argv[4], $argv[5]));
        }
        break;
    case 'inject':
        if ($argc === 5) {
            exit(inject((float) $argv[2], $argv[3], $argv[4]));
        }
        break;
    case 'check':
        if ($argc === 4) {
            exit(check($argv[2], $argv[3]));
        }
        break;
    case 'reset':
        aux()->cmd('DEL', ...keys());
        exit(0);
}
fwrite(STDERR, "usage: fenced.php worker ID END OUT_JSON PID_FILE | inject END OUT_JSON PID_DIR | check OUT_DIR MODE | reset\n");
exit(2);
