<?php
declare(strict_types=1);

/**
 * Request-end auto-release under real php-fpm: every way a request can end
 * (except the worker being killed) releases the locks it still holds, on
 * every node, before the next request can observe them.
 */
final class FpmAutoReleaseTest extends RedLockTestCase
{
    private static ?FpmHarness $fpm = null;

    protected function setUp(): void
    {
        $this->requireExtension();
        if (self::$fpm === null) {
            self::$fpm = new FpmHarness();
            self::$fpm->start();
        }
    }

    public static function tearDownAfterClass(): void
    {
        self::$fpm?->stop();
        self::$fpm = null;
    }

    private function hold(string $res, string $end, array $extra = [], float $timeout = 15.0): array
    {
        $r = self::$fpm->request('hold', $extra + [
            'RL_NODES' => $this->nodesParam(),
            'RL_RESOURCE' => $res,
            'RL_TTL' => '60000',
            'RL_END' => $end,
        ], $timeout);
        $this->assertFalse($r['timed_out'], "request ($end) timed out");
        $this->assertTrue($r['ended'], "request ($end) ended normally at the FastCGI level: " . self::$fpm->logs());
        return $r;
    }

    public static function endings(): array
    {
        return [
            'normal return' => ['return'],
            'exit()' => ['exit'],
            'uncaught exception' => ['exception'],
            'fatal error' => ['fatal'],
            'max_execution_time' => ['timeout'],
            'Lock object dropped at once' => ['drop'],
        ];
    }

    /** @dataProvider endings */
    public function testReleasedAtRequestEnd(string $end): void
    {
        $res = $this->res($end);
        $t0 = microtime(true);
        $r = $this->hold($res, $end);
        $elapsed = microtime(true) - $t0;
        if ($end === 'drop') {
            $this->assertStringContainsString('DROPPED', $r['body']);
            $this->assertTrue($this->result($r['body'])['held'],
                'dropping the Lock object must not release it (isLocked() right after)');
        } else {
            $this->tokenFrom($r['body']);
            $this->assertTrue($this->result($r['body'])['held'], 'isLocked() inside the request');
        }
        if ($end === 'fatal') {
            $this->assertStringContainsString('rl_this_function_does_not_exist', file_get_contents(self::$fpm->phpErrorLog));
        }
        if ($end === 'timeout') {
            $this->assertStringNotContainsString('BUSY LOOP ENDED', $r['body']);
            $this->assertStringContainsString('Maximum execution time', file_get_contents(self::$fpm->phpErrorLog));
            self::metric(sprintf('max_execution_time=1 request took %.2fs', $elapsed));
        }
        // Released by the time the response is complete (no waiting needed,
        // a tiny bounded grace only).
        $this->assertReleasedEverywhere($res, "after '$end'", 0.2);

        // And acquirable again by the next request.
        $next = $this->result(self::$fpm->request('try', ['RL_NODES' => $this->nodesParam(), 'RL_RESOURCE' => $res])['body']);
        $this->assertTrue($next['acquired'], 'next request acquires it');
        $this->assertTrue($next['released']);
    }

    /** Control: the same handler with auto_release off keeps the lock (so the tests above can fail). */
    public function testAutoReleaseOffKeepsLockPerCall(): void
    {
        $res = $this->res('off');
        $r = $this->hold($res, 'exception', ['RL_LOCK_OPTS' => json_encode(['auto_release' => false])]);
        $token = $this->tokenFrom($r['body']);
        try {
            $this->assertHeldEverywhere($res, $token, 'auto_release=false');
            $pttl = TestNodes::probe(0)->pttl($res);
            $this->assertGreaterThan(50000, $pttl, 'TTL untouched');
        } finally {
            TestNodes::delAll($res);
        }
    }

    public function testAutoReleaseOffByIni(): void
    {
        $res = $this->res('ini');
        $r = $this->hold($res, 'return', ['RL_INI' => json_encode(['redlock.auto_release' => '0'])]);
        $token = $this->tokenFrom($r['body']);
        try {
            $this->assertHeldEverywhere($res, $token, 'redlock.auto_release=0');
        } finally {
            TestNodes::delAll($res);
        }
        // The next request in the same worker is back to the default (on).
        $res2 = $this->res('ini-next');
        $this->hold($res2, 'return');
        $this->assertReleasedEverywhere($res2, 'ini_set does not leak into the next request', 0.2);
    }

    public function testAutoReleaseRunsAfterShutdownFunctionsAndDestructors(): void
    {
        $res = $this->res('sd');
        $r = self::$fpm->request('shutdown', ['RL_NODES' => $this->nodesParam(), 'RL_RESOURCE' => $res]);
        $this->assertTrue($r['ended']);
        $body = $r['body'];
        $this->assertMatchesRegularExpression('/^TOKENS \["[0-9a-f]{40}","[0-9a-f]{40}","[0-9a-f]{40}"\]$/m', $body);
        $this->assertStringContainsString('SHUTDOWN held=true c_held=true release=true', $body,
            'a shutdown function still sees the locks and can release them');
        $this->assertStringContainsString('DESTRUCTOR held=true release=true', $body,
            'a destructor still sees its lock and can release it');
        foreach (['a', 'b', 'c'] as $x) {
            $this->assertReleasedEverywhere("$res:$x", "lock $x", 0.2);
        }
    }
}
