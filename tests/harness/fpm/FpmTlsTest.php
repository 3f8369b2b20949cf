<?php
declare(strict_types=1);

/**
 * TLS under real php-fpm: a persistent TLS connection keeps its session
 * across requests -- no TCP connect and no handshake per request. Shown with
 * the servers' own counter (INFO stats total_connections_received) on the
 * TLS nodes of tests/nodes.sh start-tls; the control (persistent => false)
 * shows the counter does see one connection per request.
 */
final class FpmTlsTest extends RedLockTestCase
{
    /** Skips only when the build has no TLS; missing TLS nodes are a failure. */
    private function requireTls(): void
    {
        $args = $this->requireExtension();
        $php = getenv('TEST_PHP_EXECUTABLE') ?: PHP_BINARY;
        $cmd = escapeshellarg($php) . ' -n ' . implode(' ', array_map('escapeshellarg', $args))
            . ' -r ' . escapeshellarg('ob_start(); (new ReflectionExtension("redlock"))->info();'
                . ' echo preg_match("/^TLS => (.*)$/m", ob_get_clean(), $m) ? $m[1] : "?";');
        $row = trim((string)shell_exec($cmd));
        if (!str_starts_with($row, 'yes')) {
            $this->markTestSkipped("this build of redlock has no TLS (phpinfo: TLS => $row)");
        }
        $this->assertNotSame([], TestNodes::$tlsNodes, 'TLS test nodes: ' . TestNodes::$tlsWhy);
    }

    /** total_connections_received of each TLS node (each probe is one connection too). */
    private function accepted(): array
    {
        $out = [];
        foreach (TestNodes::$tlsNodes as $n) {
            $p = TestNodes::tlsProbe($n);
            preg_match('/total_connections_received:(\d+)/', (string)$p->cmd('INFO', 'stats'), $m);
            $p->close();
            $out[$n] = (int)$m[1];
        }
        return $out;
    }

    /** $n sequential lock+release requests; returns the pids that served. */
    private function cycles(FpmHarness $fpm, int $n, string $tag, array $opts): array
    {
        $pids = [];
        for ($i = 0; $i < $n; $i++) {
            $r = $fpm->request('tls_cycle', [
                'RL_NODES' => implode(',', TestNodes::$tlsNodes),
                'RL_RESOURCE' => $this->res("$tag:$i"),
                'RL_OPTS' => json_encode($opts + ['tls' => ['cafile' => TestNodes::$tlsDir . '/ca.crt']]),
            ]);
            $o = $this->result($r['body']);
            $this->assertTrue($o['a'] && $o['ra'], "request $i: lock+release over TLS: " . json_encode($o));
            $pids[$o['pid']] = true;
        }
        return array_keys($pids);
    }

    public function testPersistentTlsConnectionKeepsItsSessionAcrossRequests(): void
    {
        $this->requireTls();
        $fpm = $this->startFpm(['workers' => 1]);
        $this->cycles($fpm, 1, 'warm', []);            // the one handshake per node

        $a0 = $this->accepted();
        $t0 = microtime(true);
        $pids = $this->cycles($fpm, 30, 'p', []);
        $dt = microtime(true) - $t0;
        $a1 = $this->accepted();
        $new = [];
        foreach ($a1 as $n => $v) {
            $new[$n] = $v - $a0[$n] - 1;                // minus the probe's own connection
        }
        self::metric(sprintf('tls persistent: 30 requests in %.3fs (%.2f ms/request), one worker %s; '
            . 'new connections per TLS node: %s', $dt, 1000 * $dt / 30, json_encode($pids), json_encode(array_values($new))));
        $this->assertCount(1, $pids);
        $this->assertSame(array_fill(0, count($new), 0), array_values($new),
            'no new connection (so no TLS handshake) per request: INFO total_connections_received grew by ' . json_encode($new));
    }

    public function testControlNonPersistentHandshakesEveryRequest(): void
    {
        $this->requireTls();
        $fpm = $this->startFpm(['workers' => 1]);
        $a0 = $this->accepted();
        $this->cycles($fpm, 10, 'np', ['persistent' => false]);
        $a1 = $this->accepted();
        $new = [];
        foreach ($a1 as $n => $v) {
            $new[$n] = $v - $a0[$n] - 1;
        }
        self::metric('tls persistent=false: new connections per TLS node for 10 requests: ' . json_encode(array_values($new)));
        foreach ($new as $n => $v) {
            $this->assertSame(10, $v, "persistent=false: one connection (and handshake) per request on $n");
        }
    }
}
