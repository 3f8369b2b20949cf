<?php
declare(strict_types=1);

/**
 * No state across requests other than the pool and stats(): a lock kept
 * past its request (auto_release off) is not 'ours' in later requests of
 * the same workers, and their request end does not release it.
 */
final class FpmRequestIsolationTest extends RedLockTestCase
{
    public function testLockFromEarlierRequestIsNotOurs(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm();
        $nodes = $this->nodesParam();
        $res = $this->res('kept');
        try {
            $r = $fpm->request('hold', ['RL_NODES' => $nodes, 'RL_RESOURCE' => $res, 'RL_TTL' => '60000',
                'RL_END' => 'return', 'RL_LOCK_OPTS' => json_encode(['auto_release' => false])]);
            $token = $this->tokenFrom($r['body']);
            $this->assertHeldEverywhere($res, $token, 'kept past its request');

            // Later requests on both workers (concurrent so both serve):
            // locking it is a conflict, and their shutdown leaves it alone.
            $pids = [];
            $c = $fpm->client();
            for ($round = 0; $round < 3; $round++) {
                $hs = [];
                foreach ([0, 1] as $k) {
                    $hs[] = $c->start(FpmHarness::handler('try'), ['RL_NODES' => $nodes, 'RL_RESOURCE' => $res, 'RL_SLEEP_MS' => '150']);
                }
                foreach ($hs as $h) {
                    $o = $this->result($c->finish($h)['body']);
                    $this->assertFalse($o['acquired'], 'a lock from an earlier request is a conflict, not ours');
                    $pids[$o['pid']] = true;
                }
            }
            $this->assertCount(2, $pids, 'both workers served');
            $this->assertHeldEverywhere($res, $token, 'later requests did not release it');
            $this->assertGreaterThan(50000, TestNodes::probe(0)->pttl($res));
        } finally {
            TestNodes::delAll($res);
        }
    }

    public function testStatsPersistPerWorker(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm(['workers' => 1]);
        $seen = [];
        for ($i = 0; $i < 5; $i++) {
            $o = $this->result($fpm->request('cycle', ['RL_NODES' => $this->nodesParam(), 'RL_RESOURCE' => $this->res("s$i")])['body']);
            $this->assertTrue($o['a'] && $o['b'] && $o['ra'] && $o['rb']);
            $seen[] = $o['acquired_total'];
        }
        // Two acquisitions per request, accumulated across requests of the worker.
        $this->assertSame([2, 4, 6, 8, 10], $seen, 'stats() acquired accumulates across requests of one worker');
    }
}
