<?php
declare(strict_types=1);

/**
 * A worker killed by request_terminate_timeout gets no request shutdown:
 * its lock stays until the TTL and is then acquirable by the next request.
 */
final class FpmTerminateTest extends RedLockTestCase
{
    public function testKilledWorkerLockExpiresByTtl(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm(['request_terminate_timeout' => 1]);
        $nodes = $this->nodesParam();
        $res = $this->res('killed');
        $ttl = 3000;

        $t0 = microtime(true);
        $r = $fpm->request('hold', ['RL_NODES' => $nodes, 'RL_RESOURCE' => $res, 'RL_TTL' => (string)$ttl,
            'RL_END' => 'sleep', 'RL_SLEEP_MS' => '8000'], 6.0);
        $killedAfter = microtime(true) - $t0;
        $token = $this->tokenFrom($r['body']);
        $victim = $this->result($r['body'])['pid'];
        $this->assertStringNotContainsString('SLEEP ENDED', $r['body']);
        $this->assertFalse($r['timed_out'], 'fpm cut the request (request_terminate_timeout) before our 6s timeout');
        $this->assertTrue(TestNodes::waitFor(fn() => !FpmHarness::alive($victim) || FpmHarness::ppid($victim) !== $fpm->pid, 3.0),
            "worker $victim was killed");

        // Still held, with the dead worker's token, on every node.
        $this->assertHeldEverywhere($res, $token, 'killed worker: no release');
        $pttl = TestNodes::probe(0)->pttl($res);
        $this->assertGreaterThan(0, $pttl);

        // The next request (a fresh worker) cannot take it yet...
        $o = $this->result($fpm->request('try', ['RL_NODES' => $nodes, 'RL_RESOURCE' => $res])['body']);
        $this->assertFalse($o['acquired'], 'still held before the TTL');

        // ...and can once the TTL has run out (bounded wait: TTL + 2s).
        $gone = TestNodes::waitFor(fn() => TestNodes::present($res) === 0, $ttl / 1000 + 2, 0.05);
        $this->assertTrue((bool)$gone, 'expired by TTL');
        $expiredAfter = microtime(true) - $t0;
        $o = $this->result($fpm->request('try', ['RL_NODES' => $nodes, 'RL_RESOURCE' => $res])['body']);
        $this->assertTrue($o['acquired'], 'acquirable by the next request after the TTL');
        $this->assertTrue($o['released']);
        self::metric(sprintf('terminate: worker killed after %.2fs (request_terminate_timeout=1s); lock (ttl %dms) gone after %.2fs',
            $killedAfter, $ttl, $expiredAfter));
        $this->assertGreaterThan($ttl / 1000 - 0.5, $expiredAfter, 'the lock lived about its TTL, not less');
        $this->assertStringContainsString('terminating', file_get_contents($fpm->logFile));
    }
}
