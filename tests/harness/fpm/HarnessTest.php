<?php
declare(strict_types=1);

/** The harness itself: php-fpm starts, serves on both workers, stops cleanly. */
final class HarnessTest extends RedLockTestCase
{
    public function testPlainFpmWithoutExtension(): void
    {
        $fpm = $this->startFpm(['extension' => null]);
        $workers = $fpm->workerPids();
        $this->assertCount(2, $workers);

        $r = $fpm->request('plain', ['RL_PARAM' => 'hello']);
        $this->assertTrue($r['ended'], 'request ended');
        $this->assertSame(200, $r['status']);
        $this->assertSame('plain', $r['headers']['x-test'] ?? null);
        $res = $this->result($r['body']);
        $this->assertSame('fpm-fcgi', $res['sapi']);
        $this->assertSame('hello', $res['param']);
        $this->assertContains($res['pid'], $workers);

        // Two concurrent slow requests land on both workers.
        $c = $fpm->client();
        $a = $c->start(FpmHarness::handler('plain'), ['RL_SLEEP_MS' => '300']);
        $b = $c->start(FpmHarness::handler('plain'), ['RL_SLEEP_MS' => '300']);
        $ra = $this->result($c->finish($a)['body']);
        $rb = $this->result($c->finish($b)['body']);
        $this->assertNotSame($ra['pid'], $rb['pid']);

        $t0 = microtime(true);
        for ($i = 0; $i < 50; $i++) {
            $this->assertTrue($fpm->request('plain')['ended']);
        }
        self::metric(sprintf('plain fpm: 50 requests in %.3fs', microtime(true) - $t0));

        $pid = $fpm->pid;
        $fpm->stop();
        $this->assertFalse(FpmHarness::alive($pid), 'master gone');
        foreach ($workers as $w) {
            $this->assertFalse(FpmHarness::alive($w), "worker $w gone");
        }
    }

    public function testNodesAnswer(): void
    {
        $this->assertGreaterThanOrEqual(3, count(TestNodes::$nodes));
        foreach (TestNodes::probes() as $p) {
            $this->assertTrue($p->ping());
            $p->close();
        }
    }

    public function testExtensionLoadsInFpm(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm();
        $res = $this->result($fpm->request('plain')['body']);
        $this->assertTrue($res['redlock_class'], 'RedLock available in the fpm workers: ' . $fpm->logs());
        if (!getenv('REDLOCK_TEST_PREPEND')) {
            $this->assertTrue($res['redlock_loaded'], 'redlock extension loaded in the fpm workers');
        }
    }
}
