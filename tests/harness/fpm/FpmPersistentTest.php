<?php
declare(strict_types=1);

/**
 * Persistent connection pool under real php-fpm (pm=static, 2 workers).
 * Connections are attributed to workers by matching the workers' sockets
 * (/proc/<pid>/fd + /proc/net/tcp) against each node's CLIENT LIST.
 */
final class FpmPersistentTest extends RedLockTestCase
{
    /** @return array<string,array<int,int>> node => pid => connections */
    private function census(FpmHarness $fpm): array
    {
        $out = [];
        foreach (TestNodes::$nodes as $n) {
            $out[$n] = FpmHarness::connectionsOnNode($n, $fpm->workerPids());
        }
        return $out;
    }

    /** Local ports per worker per node: the identity of the pooled connections. */
    private function ports(FpmHarness $fpm): array
    {
        $out = [];
        foreach ($fpm->workerPids() as $pid) {
            foreach (TestNodes::$nodes as $n) {
                $out[$pid][$n] = FpmHarness::socketPorts($pid, (int)explode(':', $n)[1]);
            }
        }
        return $out;
    }

    /** stats() of both workers (concurrent slow requests so both answer): node => [ok, errors, timeouts, last_error]. */
    private function workerStats(FpmHarness $fpm): array
    {
        $c = $fpm->client();
        $hs = [];
        foreach ([0, 1] as $k) {
            $hs[] = $c->start(FpmHarness::handler('stats'), ['RL_NODES' => $this->nodesParam(), 'RL_SLEEP_MS' => '100']);
        }
        $out = [];
        foreach ($hs as $h) {
            $r = $c->finish($h);
            if (!preg_match('/^RESULT (\{.*\})$/m', $r['body'], $m)) {
                $out[] = substr($r['body'], 0, 300);
                continue;
            }
            $o = json_decode($m[1], true);
            $short = [];
            foreach ($o['stats']['nodes'] ?? [] as $n => $st) {
                $short[$n] = [$st['ok'] ?? null, $st['errors'] ?? null, $st['timeouts'] ?? null, $st['last_error'] ?? null];
            }
            $out[$o['pid']] = $short;
        }
        return $out;
    }

    /** INFO stats total_connections_received per node. */
    private function acceptedConnections(): array
    {
        $out = [];
        foreach (TestNodes::$nodes as $n) {
            $p = RedisProbe::fromAddr($n);
            preg_match('/total_connections_received:(\d+)/', (string)$p->cmd('INFO', 'stats'), $m);
            $p->close();
            $out[$n] = (int)$m[1];
        }
        return $out;
    }

    /** Send $n cycle requests, two in flight at a time; returns pids that served. */
    private function burst(FpmHarness $fpm, int $n, string $tag, array $extra = []): array
    {
        $c = $fpm->client();
        $pids = [];
        for ($i = 0; $i < $n; $i += 2) {
            $hs = [];
            for ($k = 0; $k < 2 && $i + $k < $n; $k++) {
                $hs[] = $c->start(FpmHarness::handler('cycle'), $extra + [
                    'RL_NODES' => $this->nodesParam(),
                    'RL_RESOURCE' => $this->res("$tag:" . ($i + $k)),
                ]);
            }
            foreach ($hs as $h) {
                $r = $c->finish($h);
                $this->assertTrue($r['ended'], 'request ended: ' . substr($r['body'], 0, 500));
                $o = $this->result($r['body']);
                $this->assertTrue($o['a'] && $o['b'] && $o['ra'] && $o['rb'], 'lock+release via both objects: ' . json_encode($o));
                $pids[$o['pid']] = ($pids[$o['pid']] ?? 0) + 1;
            }
        }
        return $pids;
    }

    /** @return array{0:FpmHarness,1:list<int>,2:array,3:array,4:float,5:array} fpm, workers, ports before, accepted during, seconds, served */
    private function run200(): array
    {
        $fpm = $this->startFpm();
        $workers = $fpm->workerPids();
        $this->assertCount(2, $workers);

        // Warm up until both workers have served (slow concurrent pairs).
        $served = $this->burst($fpm, 4, 'warm', ['RL_SLEEP_MS' => '100']);
        $this->assertCount(2, $served, 'both workers served the warm-up');
        $before = $this->ports($fpm);
        $accepted0 = $this->acceptedConnections();

        $t0 = microtime(true);
        $served = $this->burst($fpm, 200, 'burst');
        $dt = microtime(true) - $t0;
        $this->assertSame(200, array_sum($served));
        $accepted = [];
        foreach ($this->acceptedConnections() as $n => $v) {
            $accepted[$n] = $v - $accepted0[$n] - 1;   // minus the probe's own INFO connection
        }
        return [$fpm, $workers, $before, $accepted, $dt, $served];
    }

    public function test200RequestsKeepConnectionsPerNodeEqualToWorkers(): void
    {
        $this->requireExtension();
        [$fpm, $workers, , , $dt, $served] = $this->run200();

        $census = $this->census($fpm);
        $perNode = [];
        foreach ($census as $node => $byPid) {
            $perNode[$node] = array_sum($byPid);
        }
        self::metric(sprintf('persistent: 200 requests (2 RedLock objects, 2 locks + 2 releases each, 2 in flight) in %.3fs = %.2f ms/request; '
            . 'served per worker %s; CLIENT LIST connections per node after: %s',
            $dt, 1000 * $dt / 200, json_encode(array_values($served)), json_encode(array_values($perNode))));
        foreach ($census as $node => $byPid) {
            foreach ($workers as $pid) {
                $this->assertSame(1, $byPid[$pid] ?? 0, "worker $pid has exactly one connection to $node (CLIENT LIST)");
            }
            $this->assertSame(count($workers), $perNode[$node], "connections on $node == number of workers");
        }
        $this->assertSame($workers, $fpm->workerPids(), 'no worker was respawned');
    }

    public function test200RequestsReuseThePooledConnections(): void
    {
        $this->requireExtension();
        [$fpm, , $before, $accepted] = $this->run200();
        self::metric('persistent: new connections accepted per node during the 200 requests: ' . json_encode(array_values($accepted)));
        // Same sockets (local ports) as before the burst: reused, not reopened.
        // (INFO total_connections_received is only reported: other clients of
        // shared nodes would count there too.)
        $this->assertSame($before, $this->ports($fpm),
            'pooled connections were reused, not reopened; new connections per node (INFO): ' . json_encode(array_values($accepted))
            . "; workers' stats() [ok, errors, timeouts, last_error]: " . json_encode($this->workerStats($fpm)));
    }

    public function testRedisRestartBetweenRequestsCostsOnlyAReconnect(): void
    {
        $this->requireExtension();
        if (!TestNodes::canRestart()) {
            $this->markTestSkipped('cannot restart nodes (tests/nodes.sh missing)');
        }
        $fpm = $this->startFpm();
        $served = $this->burst($fpm, 4, 'warm', ['RL_SLEEP_MS' => '100']);
        $this->assertCount(2, $served);
        $before = $this->ports($fpm);

        // Restart node 1 and node 2 (2 of 5: the quorum alone would hide a
        // failed reconnect, so we check the keys landed on the restarted nodes too).
        TestNodes::restart(1);
        TestNodes::restart(2);

        $res = $this->res('after-restart');
        $c = $fpm->client();
        $hs = [];
        $t0 = microtime(true);
        foreach ([0, 1] as $k) {
            $hs[$k] = $c->start(FpmHarness::handler('hold'), [
                'RL_NODES' => $this->nodesParam(), 'RL_RESOURCE' => "$res:$k", 'RL_TTL' => '30000', 'RL_END' => 'sleep',
                'RL_SLEEP_MS' => '300', 'RL_LOCK_OPTS' => json_encode(['auto_release' => false]),
            ]);
        }
        $pids = [];
        try {
            foreach ($hs as $k => $h) {
                $r = $c->finish($h);
                $token = $this->tokenFrom($r['body']);
                $pids[$this->result($r['body'])['pid']] = true;
                $this->assertHeldEverywhere("$res:$k", $token, "first request after the restart (#$k) locked on every node, restarted ones included");
            }
            $dt = microtime(true) - $t0;
            self::metric(sprintf('restart: 2 concurrent first requests after restarting 2 nodes done in %.3fs (incl. 0.3s sleep)', $dt));
            $this->assertCount(2, $pids, 'both workers served after the restart');
        } finally {
            TestNodes::delAll("$res:0");
            TestNodes::delAll("$res:1");
        }
        // Still exactly one live connection per worker per node.
        foreach ($this->census($fpm) as $node => $byPid) {
            foreach ($fpm->workerPids() as $pid) {
                $this->assertSame(1, $byPid[$pid] ?? 0, "worker $pid: one connection to $node after the restart");
            }
        }
        $after = $this->ports($fpm);
        foreach ($fpm->workerPids() as $pid) {
            $n3 = TestNodes::$nodes[2];
            $this->assertSame($before[$pid][$n3], $after[$pid][$n3], 'untouched node kept its connection');
        }
    }

    public function testNonPersistentClosesAtRequestEnd(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm(['workers' => 1]);
        [$pid] = $fpm->workerPids();

        $opts = json_encode(['persistent' => false]);
        $o = $this->result($fpm->request('cycle', ['RL_NODES' => $this->nodesParam(), 'RL_RESOURCE' => $this->res('np'), 'RL_OPTS' => $opts])['body']);
        $this->assertTrue($o['a'] && $o['ra']);
        $zero = TestNodes::waitFor(function () use ($fpm) {
            foreach ($this->census($fpm) as $byPid) {
                if (array_sum($byPid) !== 0) {
                    return false;
                }
            }
            return true;
        }, 1.0);
        $this->assertTrue($zero, 'persistent=false: no connection left after the request: ' . json_encode($this->census($fpm)));

        // Control: the default (persistent) keeps one per node.
        $o = $this->result($fpm->request('cycle', ['RL_NODES' => $this->nodesParam(), 'RL_RESOURCE' => $this->res('p')])['body']);
        $this->assertTrue($o['a'] && $o['ra']);
        foreach ($this->census($fpm) as $node => $byPid) {
            $this->assertSame(1, $byPid[$pid], "persistent default keeps one connection to $node");
        }
    }
}
