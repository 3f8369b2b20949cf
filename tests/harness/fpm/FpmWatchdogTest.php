<?php
declare(strict_types=1);

/**
 * auto_extend under real php-fpm: the worker outlives the request, so the
 * watchdog must stop watching a request's locks at its end (released with
 * auto_release, else left to their TTL), and the worker must still exit
 * promptly (MSHUTDOWN joins the watchdog thread).
 */
final class FpmWatchdogTest extends RedLockTestCase
{
    private function hold(FpmHarness $fpm, string $res, string $end, array $lockOpts, int $ttl = 1000): array
    {
        $r = $fpm->request('hold', [
            'RL_NODES' => $this->nodesParam(),
            'RL_RESOURCE' => $res,
            'RL_TTL' => (string)$ttl,
            'RL_END' => $end,
            'RL_LOCK_OPTS' => json_encode($lockOpts),
        ], 15.0);
        $this->assertFalse($r['timed_out'], "request ($end) timed out");
        $this->assertTrue($r['ended'], "request ($end) ended: " . $fpm->logs());
        return $r;
    }

    /** Without auto_release: the lock outlives the request, but only by its TTL (no more extensions). */
    public function testWatchStopsAtRequestEndLockExpiresByTtl(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm(['workers' => 1]);
        $res = $this->res('ttl');
        $r = $this->hold($fpm, $res, 'return', ['auto_extend' => true, 'auto_release' => false]);
        $token = $this->tokenFrom($r['body']);
        $t0 = microtime(true);
        try {
            $this->assertSame(count(TestNodes::$nodes), TestNodes::holders($res, $token), 'not released (auto_release off)');
            // the worker lives on: were it still watched, the key would never expire
            $gone = TestNodes::waitFor(fn() => TestNodes::present($res) === 0, 3.0);
            $this->assertNotFalse($gone, 'the key expired by its TTL after the request ended');
            $this->assertLessThan(1.3, microtime(true) - $t0, 'expired within its 1 s TTL: not extended after the request');
            // the next request of the same worker acquires it
            $next = $this->result($fpm->request('try', ['RL_NODES' => $this->nodesParam(), 'RL_RESOURCE' => $res])['body']);
            $this->assertTrue($next['acquired']);
        } finally {
            TestNodes::delAll($res);
        }
    }

    /** Control for the test above: during the request (a sleep past the TTL) the lock is kept. */
    public function testWatchedDuringTheRequest(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm(['workers' => 1]);
        $res = $this->res('during');
        $r = $fpm->request('watch', ['RL_NODES' => $this->nodesParam(), 'RL_RESOURCE' => $res,
                                      'RL_TTL' => '1000', 'RL_SLEEP_MS' => '2500'], 15.0);
        $out = $this->result($r['body']);
        $this->assertTrue($out['acquired']);
        $this->assertTrue($out['valid'], 'valid after 2.5 s with a 1 s TTL');
        $this->assertGreaterThan(0, $out['remaining']);
        $this->assertFalse($out['other_acquired'], 'nobody else could take it');
        $this->assertGreaterThanOrEqual(5, $out['auto_extended']);
        $this->assertReleasedEverywhere($res, 'released at request end (auto_release)', 0.3);
    }

    /**
     * With auto_release (the default): released at the end, however the request ends.
     * Each request must have held the lock (its TOKEN, and isLocked() during the
     * request) and ended the way it says: the uncaught exception and the
     * max_execution_time fatal are in the worker's error log. The TTL (5 s) is
     * far longer than the wait for the release, so an expiry cannot pass for one.
     */
    public function testReleasedAtRequestEnd(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm(['workers' => 1]);
        $ended = [
            'return' => null,
            'exception' => 'uncaught on purpose',
            'timeout' => 'Maximum execution time of 1 second exceeded',
        ];
        foreach ($ended as $end => $logged) {
            $res = $this->res($end);
            clearstatcache();
            $logFrom = is_file($fpm->phpErrorLog) ? filesize($fpm->phpErrorLog) : 0;
            $r = $this->hold($fpm, $res, $end, ['auto_extend' => true], 5000);
            $this->tokenFrom($r['body']);   // fails on "NOT ACQUIRED"
            $this->assertTrue($this->result($r['body'])['held'], "'$end': held during the request");
            $this->assertStringNotContainsString('ENDED WITHOUT', $r['body'], "'$end': the request ended as it should");
            if ($logged !== null) {
                $this->assertNotFalse(TestNodes::waitFor(function () use ($fpm, $logFrom, $logged) {
                    clearstatcache();
                    return is_file($fpm->phpErrorLog)
                        && str_contains((string)file_get_contents($fpm->phpErrorLog, false, null, $logFrom), $logged);
                }, 2.0), "'$end': the worker logged '$logged': " . $fpm->logs());
            }
            $this->assertReleasedEverywhere($res, "after '$end'", 0.3);
        }
    }

    /** The watchdog thread does not hold a worker up: a graceful stop (SIGQUIT: MSHUTDOWN joins the thread) is prompt. */
    public function testGracefulStopJoinsPromptly(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm(['workers' => 2]);
        $res = $this->res('stop');
        // a watched lock left to its TTL: the thread is running and idle
        $this->hold($fpm, $res, 'return', ['auto_extend' => true, 'auto_release' => false], 60000);
        $pids = $fpm->workerPids();
        $this->assertNotEmpty($pids);
        $t0 = microtime(true);
        posix_kill($fpm->pid, SIGQUIT);
        $gone = TestNodes::waitFor(function () use ($pids) {
            foreach ($pids as $p) {
                if (FpmHarness::alive($p)) {
                    return false;
                }
            }
            return true;
        }, 5.0);
        $took = microtime(true) - $t0;
        self::metric(sprintf('php-fpm graceful stop with a watchdog thread: %.2fs', $took));
        $this->assertNotFalse($gone, 'workers exited after SIGQUIT: ' . $fpm->logs());
        $this->assertLessThan(3.0, $took);
        $this->assertStringNotContainsString('SIGSEGV', $fpm->logs());
        $this->assertStringNotContainsString('SIGKILL', $fpm->logs());
        TestNodes::delAll($res);
    }
}
