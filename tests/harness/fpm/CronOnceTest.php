<?php
declare(strict_types=1);

/**
 * examples/cron_once.php: "run at most once across hosts". Two concurrent
 * runs (standing in for two hosts): the second exits at once with a clear
 * message; the lock is released when the first ends, also when it dies
 * from an uncaught exception.
 */
final class CronOnceTest extends RedLockTestCase
{
    private static function script(): string
    {
        return dirname(__DIR__, 3) . '/examples/cron_once.php';
    }

    /** @return array{0:resource,1:array} */
    private function spawn(string $job, array $env, int $ttl = 60000): array
    {
        $load = $this->requireExtension();
        $cmd = [PHP_BINARY, '-n', ...$load, ...[self::script(), $job, (string)$ttl]];
        $env += ['REDLOCK_NODES' => $this->nodesParam(), 'PATH' => getenv('PATH') ?: '/usr/bin:/bin'];
        $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
        $this->assertIsResource($p);
        return [$p, $pipes];
    }

    /** Wait (bounded) for the first run to say it holds the lock; returns what it printed. */
    private function waitAcquired(array $pipes, $proc): string
    {
        stream_set_blocking($pipes[1], false);
        $buf = '';
        $deadline = microtime(true) + 5;
        while (!str_contains($buf, 'acquired') && microtime(true) < $deadline) {
            $r = [$pipes[1]];
            $w = $e = null;
            if (@stream_select($r, $w, $e, 0, 50000) > 0) {
                $buf .= (string)fread($pipes[1], 8192);
            }
            if (!proc_get_status($proc)['running']) {
                break;
            }
        }
        if (!str_contains($buf, 'acquired cron:')) {
            stream_set_blocking($pipes[2], false);
            $this->fail("first run did not acquire within 5s: $buf " . fread($pipes[2], 8192));
        }
        return $buf;
    }

    private function runOnce(string $job, array $env = []): array
    {
        [$p, $pipes] = $this->spawn($job, $env);
        $t0 = microtime(true);
        [$out, $err, $code] = self::collect($p, $pipes, 15.0);
        return [$out, $err, $code, microtime(true) - $t0];
    }

    private function secondRunIsRefused(string $job, string $key): void
    {
        $vals = TestNodes::values($key);
        $holder = $vals[0];
        $this->assertNotNull($holder, "first run holds the key $key: " . json_encode($vals) . ' ' . json_encode(TestNodes::$nodes));
        $this->assertSame(array_fill(0, count($vals), $holder), $vals,
            'held on every node while the first run works, though the Lock object was dropped');

        [$out, $err, $code, $dt] = $this->runOnce($job);
        self::metric(sprintf('cron_once: refused second run exited in %.3fs', $dt));
        $this->assertSame(1, $code, "second run exit code (stdout: $out, stderr: $err)");
        $this->assertStringContainsString("job '$job' is already running on another host", $err);
        $this->assertStringNotContainsString('acquired', $out);
        $this->assertLessThan(1.5, $dt, 'second run exits at once');
        $this->assertSame($vals, TestNodes::values($key), 'the refused run left the lock alone');
    }

    public function testSecondConcurrentRunExitsAndLockIsReleasedWhenFirstEnds(): void
    {
        $job = $this->res('job');
        $key = "cron:$job";
        [$p, $pipes] = $this->spawn($job, ['CRON_ONCE_WORK_MS' => '2500']);
        $first = $this->waitAcquired($pipes, $p);
        try {
            $this->secondRunIsRefused($job, $key);
        } finally {
            [$out, $err, $code] = self::collect($p, $pipes, 15.0);
            $out = $first . $out;
        }
        $this->assertSame(0, $code, "first run exit code; stderr: $err");
        $this->assertStringContainsString("job '$job' done", $out);
        // Released at script end: no waiting for the TTL (60 s).
        $this->assertReleasedEverywhere($key, 'after the first run ended', 0.2);

        [$out, $err, $code] = $this->runOnce($job);
        $this->assertSame(0, $code, "a later run gets the lock again; stderr: $err");
        $this->assertReleasedEverywhere($key, 'after the later run', 0.2);
    }

    public function testLockReleasedWhenFirstRunDiesFromUncaughtException(): void
    {
        $job = $this->res('failjob');
        $key = "cron:$job";
        [$p, $pipes] = $this->spawn($job, ['CRON_ONCE_WORK_MS' => '2000', 'CRON_ONCE_FAIL' => '1']);
        $first = $this->waitAcquired($pipes, $p);
        try {
            $this->secondRunIsRefused($job, $key);
        } finally {
            [$out, $err, $code] = self::collect($p, $pipes, 15.0);
            $out = $first . $out;
        }
        $this->assertSame(255, $code, "uncaught exception exit code; stdout: $out stderr: $err");
        $this->assertStringContainsString("job '$job' failed", $out . $err);
        $this->assertReleasedEverywhere($key, 'after the first run died from an uncaught exception', 0.2);

        [$out, $err, $code] = $this->runOnce($job);
        $this->assertSame(0, $code, "a later run gets the lock again; stderr: $err");
    }
}
