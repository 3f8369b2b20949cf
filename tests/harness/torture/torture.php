<?php
// torture.php -- mutual-exclusion torture test of the redlock extension (driven by run.sh).
//
//   php -n -d extension=redlock.so torture.php worker ID ITERATIONS END_UNIX_TIME OUT_JSON
//       one contending process: up to ITERATIONS acquisitions of ONE resource (or until
//       END_UNIX_TIME); inside the critical section it checks isValid(), takes an
//       "occupied" marker on the AUX node with SET NX (already there = OVERLAP), reads
//       the counter, sleeps 0-3 ms, writes counter+1 (GET then SET, never INCR, so a
//       lost update shows), drops the marker, releases. Writes its figures as JSON.
//   php -n torture.php check OUT_DIR FAULTS_FILE WALL_MS
//       reads every worker's JSON, the counter on AUX and the injector's fault counts,
//       prints the figures and "1 passed, 0 failed" (exit 0) or "0 passed, 1 failed" (exit 1).
//       Judged: lost updates, overlaps, locks invalid at entry or expired in the critical
//       section (each must be 0: the section takes a few ms of a 1.5 s validity), faults
//       (unless TORTURE_NO_FAULTS=1: at least one pause and one kill, all healed, and the
//       clients saw timeouts and errors), and liveness (see LIVENESS_GAP).
//   php -n torture.php reset
//       clears the run's keys on AUX.
//
// Environment: REDLOCK_TEST_NODES, REDLOCK_TEST_AUX (tests/nodes.sh env), TORTURE_RUN (key
// namespace on AUX), TORTURE_TTL (ms, default 1500), TORTURE_NO_LOCK=1 (skip the lock: the
// test must then FAIL -- proves it can detect a broken lock).
//
// The AUX node is reached with the small RESP client of tests/config.inc (no php-redis needed).
// AUX connection, JSON reports and exit codes: tests/harness/torture/common.php (shared with fenced.php).

declare(strict_types=1);

require __DIR__ . '/common.php';

const TAG = 'torture';
const AUX_TIMEOUT = 2.0;
const RESOURCE = 'torture:resource';

/**
 * Liveness: the longest time, in TTLs plus a second, with no acquisition by any worker
 * (from the first worker's start to the last one's end). With at most 2 of 5 nodes faulty
 * a quorum can be out of reach only while a key of a failed attempt or of a holder whose
 * release was lost lives on (at most 1 TTL), a restarted node waits out its grace (the
 * longest TTL plus the drift: 1 TTL) and a paused node is held (at most 1.6 s, about 1 TTL
 * at the default 1500 ms); the second covers the retry period and the scheduling.
 */
function liveness_gap_ms(int $ttl): int
{
    return 3 * $ttl + 1000;
}

function keys(): array
{
    $run = getenv('TORTURE_RUN') ?: 'default';
    return ["torture:$run:counter", "torture:$run:occupied"];
}

function expect_ok(mixed $reply, string $what): void
{
    if ($reply !== 'OK') {
        throw new RuntimeException("AUX $what: " . var_export((string) $reply, true));
    }
}

function worker(int $id, int $iterations, float $end, string $out): int
{
    [$counterKey, $markerKey] = keys();
    $noLock = getenv('TORTURE_NO_LOCK') === '1';
    $ttl = (int) (getenv('TORTURE_TTL') ?: 1500);
    $fig = [
        'id' => $id, 'pid' => getmypid(), 'attempts' => 0, 'acquired' => 0, 'nulls' => 0,
        'quorum_exceptions' => 0, 'other_exceptions' => 0, 'other_messages' => [],
        'invalid_at_entry' => 0, 'expired_in_cs' => 0, 'overlaps' => 0, 'successes' => 0,
        'release_true' => 0, 'release_false' => 0, 'release_exceptions' => 0,
        'quorum_messages' => [], 'max_critical_ms' => 0.0, 'stats' => null,
        'start_ms' => now_ms(), 'end_ms' => 0, 'acquired_at_ms' => [],
    ];
    $rl = new RedLock(rl_nodes(), [
        'connect_timeout' => 50, 'timeout' => 50,
        'retry_delay' => 10, 'retry_jitter' => 10, 'wait' => 3000,
    ]);
    $aux = aux();
    $rnd = fn(int $a, int $b): int => random_int($a, $b);
    // write the figures whatever happens (an unexpected Throwable is reported, not lost)
    $flush = function () use (&$fig, $rl, $out): void {
        $fig['stats'] = $rl->stats();
        $fig['end_ms'] = now_ms();
        write_json($out, $fig, JSON_PRETTY_PRINT);
    };

    try {
        for ($i = 0; $i < $iterations && microtime(true) < $end; $i++) {
            $fig['attempts']++;
            $lock = null;
            if (!$noLock) {
                try {
                    $lock = $rl->lock(RESOURCE, $ttl);
                } catch (RedLock\QuorumException $e) {
                    $fig['quorum_exceptions']++;
                    if (count($fig['quorum_messages']) < 3) {
                        $fig['quorum_messages'][] = $e->getMessage();
                    }
                    continue;
                } catch (Throwable $e) {
                    $fig['other_exceptions']++;
                    if (count($fig['other_messages']) < 5) {
                        $fig['other_messages'][] = get_class($e) . ': ' . $e->getMessage();
                    }
                    continue;
                }
                if ($lock === null) {
                    $fig['nulls']++;
                    continue;
                }
                if (!$lock instanceof RedLock\Lock) {
                    $fig['other_exceptions']++;
                    $fig['other_messages'][] = 'lock() returned ' . get_debug_type($lock);
                    continue;
                }
            }
            $fig['acquired']++;
            $fig['acquired_at_ms'][] = now_ms();
            $t0 = hrtime(true);
            if ($lock !== null && !$lock->isValid()) {
                // validity already gone: a correct client must not touch the resource
                $fig['invalid_at_entry']++;
            } else {
                // ---- critical section ----
                $mine = "$id:$i:" . bin2hex(random_bytes(4));
                $set = $aux->cmd('SET', $markerKey, $mine, 'NX', 'PX', 60000);
                if ($set === null) {
                    $fig['overlaps']++;
                } else {
                    expect_ok($set, 'SET marker');
                }
                $v = $aux->cmd('GET', $counterKey);
                if ($v instanceof RlRedisError) {
                    throw new RuntimeException("AUX GET: $v");
                }
                usleep($rnd(0, 3000));
                expect_ok($aux->cmd('SET', $counterKey, (string) ((int) $v + 1)), 'SET counter');
                $fig['successes']++;
                // drop the marker only when it is ours
                $aux->cmd('EVAL', "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
                    1, $markerKey, $mine);
                // ---- end of critical section ----
            }
            if ($lock !== null && !$lock->isValid()) {
                $fig['expired_in_cs']++;   // validity ran out inside: would explain an overlap
            }
            $fig['max_critical_ms'] = max($fig['max_critical_ms'], round((hrtime(true) - $t0) / 1e6, 2));
            if ($lock !== null) {
                try {
                    $lock->release() ? $fig['release_true']++ : $fig['release_false']++;
                } catch (RedLock\Exception $e) {
                    $fig['release_exceptions']++;
                } catch (Throwable $e) {
                    $fig['other_exceptions']++;
                    $fig['other_messages'][] = 'release: ' . get_class($e) . ': ' . $e->getMessage();
                }
            }
        }
    } catch (Throwable $e) {
        $fig['other_exceptions']++;
        $fig['other_messages'][] = 'worker: ' . get_class($e) . ': ' . $e->getMessage();
        $flush();
        return 1;
    }
    $flush();
    return 0;
}

function now_ms(): int
{
    return (int) floor(microtime(true) * 1000);
}

/** The longest stretch of [first start, last end] without an acquisition, in ms. */
function longest_gap(array $reports): int
{
    $starts = array_column($reports, 'start_ms');
    $ends = array_column($reports, 'end_ms');
    if (!$starts || !$ends) {
        return PHP_INT_MAX;
    }
    $at = array_merge(...array_map(fn($w) => $w['acquired_at_ms'] ?? [], $reports));
    sort($at);
    $prev = min($starts);
    $gap = 0;
    foreach ([...$at, max($ends)] as $t) {
        $gap = max($gap, $t - $prev);
        $prev = $t;
    }
    return $gap;
}

function check(string $dir, string $faultsFile, int $wallMs): int
{
    [$counterKey, $markerKey] = keys();
    $problems = [];
    $msgs = [];
    $qmsgs = [];
    $maxCrit = 0.0;
    $nodeErr = [];
    [$reports, $sum] = read_reports($dir, $problems);
    $workers = count($reports);
    foreach ($reports as $w) {
        $maxCrit = max($maxCrit, (float) $w['max_critical_ms']);
        foreach ($w['quorum_messages'] as $m) {
            $qmsgs[] = "worker {$w['id']}: $m";
        }
        foreach ($w['other_messages'] as $m) {
            $msgs[] = "worker {$w['id']}: $m";
        }
        foreach ($w['stats']['nodes'] ?? [] as $name => $n) {
            $nodeErr[$name]['errors'] = ($nodeErr[$name]['errors'] ?? 0) + $n['errors'];
            $nodeErr[$name]['timeouts'] = ($nodeErr[$name]['timeouts'] ?? 0) + $n['timeouts'];
        }
    }
    $rcs = exit_codes($dir);
    $expected = (int) @file_get_contents("$dir/workers");
    $bad = array_filter($rcs, fn($rc) => $rc !== 0);
    if ($expected === 0 || count($rcs) !== $expected || $workers !== $expected) {
        $problems[] = "expected $expected workers, got " . count($rcs) . " exit codes and $workers reports";
    }
    foreach ($bad as $id => $rc) {
        $problems[] = "worker $id exited with $rc";
    }

    $v = aux()->cmd('GET', $counterKey);
    $counter = $v === null ? 0 : (int) $v;
    $marker = aux()->cmd('GET', $markerKey);
    $successes = $sum['successes'] ?? 0;
    $lost = $successes - $counter;
    $overlaps = $sum['overlaps'] ?? 0;
    $ended = ($sum['acquired'] ?? 0) + ($sum['nulls'] ?? 0) + ($sum['quorum_exceptions'] ?? 0);
    $attempts = $sum['attempts'] ?? 0;

    $faults = [];
    foreach (@file($faultsFile, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) ?: [] as $line) {
        if (preg_match('/^(\w+)=(\d+)$/', $line, $m)) {
            $faults[$m[1]] = (int) $m[2];
        }
    }

    $noLock = getenv('TORTURE_NO_LOCK') === '1';
    $noFaults = getenv('TORTURE_NO_FAULTS') === '1';
    $ttl = (int) (getenv('TORTURE_TTL') ?: 1500);
    $gap = longest_gap($reports);
    $timeouts = array_sum(array_column($nodeErr, 'timeouts'));
    $errors = array_sum(array_column($nodeErr, 'errors'));
    printf("mode:                 %s\n", $noLock ? 'TORTURE_NO_LOCK=1 (no lock taken: this run must FAIL)' : 'locked');
    printf("workers:              %d\n", $workers);
    printf("attempts:             %d\n", $attempts);
    printf("acquisitions:         %d\n", $sum['acquired'] ?? 0);
    printf("nulls:                %d\n", $sum['nulls'] ?? 0);
    printf("quorum exceptions:    %d\n", $sum['quorum_exceptions'] ?? 0);
    printf("other exceptions:     %d\n", $sum['other_exceptions'] ?? 0);
    printf("invalid at entry:     %d\n", $sum['invalid_at_entry'] ?? 0);
    printf("expired in crit. sec.: %d\n", $sum['expired_in_cs'] ?? 0);
    printf("releases true/false/exception: %d/%d/%d\n", $sum['release_true'] ?? 0, $sum['release_false'] ?? 0,
        $sum['release_exceptions'] ?? 0);
    printf("increments:           %d counted by workers, counter on AUX %d\n", $successes, $counter);
    printf("lost updates:         %d\n", $lost);
    printf("overlaps:             %d\n", $overlaps);
    printf("max critical section: %.1f ms\n", $maxCrit);
    printf("faults injected:      %d (pause %d, kill %d; healed by resume %d, restart %d; max faulty at once %d)\n",
        ($faults['pause'] ?? 0) + ($faults['kill'] ?? 0), $faults['pause'] ?? 0, $faults['kill'] ?? 0,
        $faults['resume'] ?? 0, $faults['restart'] ?? 0, $faults['max_faulty_at_once'] ?? 0);
    $ne = [];
    foreach ($nodeErr as $name => $n) {
        $ne[] = "$name {$n['errors']}e/{$n['timeouts']}t";
    }
    printf("node errors/timeouts: %s\n", implode(', ', $ne));
    printf("longest gap without an acquisition: %d ms (at most %d: 3 x TTL + 1 s)\n", $gap, liveness_gap_ms($ttl));
    printf("wall time:            %.1f s\n", $wallMs / 1000);
    foreach (array_slice($qmsgs, 0, 2) as $m) {
        echo "  sample QuorumException: $m\n";
    }
    foreach (array_slice($msgs, 0, 10) as $m) {
        echo "  unexpected: $m\n";
    }

    if ($lost !== 0) {
        $problems[] = "lost updates: $lost (workers counted $successes, counter is $counter)";
    }
    if ($overlaps !== 0) {
        $problems[] = "overlaps: $overlaps";
    }
    if (($sum['other_exceptions'] ?? 0) !== 0) {
        $problems[] = "other exceptions: " . ($sum['other_exceptions'] ?? 0);
    }
    if ($ended !== $attempts) {
        $problems[] = "attempts $attempts but only $ended ended as success/null/QuorumException";
    }
    if (!$noLock && ($sum['acquired'] ?? 0) < $workers) {
        $problems[] = "too few acquisitions (" . ($sum['acquired'] ?? 0) . ") to mean anything";
    }
    if (!$noLock) {
        // lock() returns a lock only with validity left, and the critical section takes a
        // few ms of it: either count means the validity the lock claims is wrong
        foreach (['invalid_at_entry' => 'invalid at entry', 'expired_in_cs' => 'expired in the critical section'] as $k => $what) {
            if (($sum[$k] ?? 0) !== 0) {
                $problems[] = "locks $what: {$sum[$k]}";
            }
        }
        if ($gap > liveness_gap_ms($ttl)) {
            $problems[] = "liveness: $gap ms without any acquisition (at most " . liveness_gap_ms($ttl) . " ms)";
        }
    }
    if (!$noFaults) {
        // a run without faults proves nothing about faults: both kinds, healed, and seen
        foreach (['pause' => 'resume', 'kill' => 'restart'] as $fault => $heal) {
            if (($faults[$fault] ?? 0) < 1) {
                $problems[] = "no $fault injected";
            } elseif (($faults[$heal] ?? 0) !== $faults[$fault]) {
                $problems[] = "{$faults[$fault]} {$fault}s but {$faults[$heal]} {$heal}s";
            }
        }
        if (($faults['pause'] ?? 0) > 0 && $timeouts === 0) {
            $problems[] = "pauses injected but no client saw a timeout";
        }
        if (($faults['kill'] ?? 0) > 0 && $errors === 0) {
            $problems[] = "kills injected but no client saw an error";
        }
    }
    if (($faults['max_faulty_at_once'] ?? 0) > 2) {
        $problems[] = "injector had {$faults['max_faulty_at_once']} nodes faulty at once (max 2)";
    }
    if (is_string($marker)) {
        $problems[] = "occupied marker left behind: $marker";
    }
    foreach ($problems as $p) {
        echo "FAIL: $p\n";
    }
    $ok = !$problems;
    echo $ok ? "torture: PASS\n" : "torture: FAIL\n";
    echo $ok ? "1 passed, 0 failed\n" : "0 passed, 1 failed\n";
    return $ok ? 0 : 1;
}

$cmd = $argv[1] ?? '';
switch ($cmd) {
    case 'worker':
        if ($argc !== 6) {
            break;
        }
        if (!extension_loaded('redlock')) {
            fwrite(STDERR, "torture: redlock extension not loaded\n");
            exit(2);
        }
        exit(worker((int) $argv[2], (int) $argv[3], (float) $argv[4], $argv[5]));
    case 'check':
        if ($argc !== 5) {
            break;
        }
        exit(check($argv[2], $argv[3], (int) $argv[4]));
    case 'reset':
        aux()->cmd('DEL', ...keys());
        exit(0);
}
fwrite(STDERR, "usage: torture.php worker ID ITERATIONS END_UNIX_TIME OUT_JSON | check OUT_DIR FAULTS_FILE WALL_MS | reset\n");
exit(2);
