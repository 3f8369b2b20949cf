<?php
declare(strict_types=1);

require_once __DIR__ . '/../../metrics/metrics.inc';

/**
 * RedLock::metrics() under a real php-fpm pool (4 static workers): every
 * worker of the pool reads and updates the same figures (one table per user
 * of the master's workers); a worker SIGKILLed in the middle of its requests
 * leaves them consistent, and the pool goes on counting exactly. Two pools
 * of one master running as two users see nothing of each other's.
 */
final class FpmMetricsTest extends RedLockTestCase
{
    private const WORKERS = 4;

    /** $n requests of one lock+release each, $workers in flight at a time (spread over the workers); their pids. */
    private function cycles(FpmHarness $fpm, string $res, int $n, ?string $pool = null, int $workers = self::WORKERS,
                            array $params = []): array
    {
        $pids = [];
        $client = $fpm->client($pool);
        for ($i = 0; $i < $n; $i += $workers) {
            $socks = [];
            for ($k = $i; $k < min($n, $i + $workers); $k++) {
                $socks[] = $client->start(FpmHarness::handler('metrics'),
                    $params + ['RL_NODES' => $this->nodesParam(), 'RL_RESOURCE' => $res, 'RL_CYCLES' => '1']);
            }
            foreach ($socks as $s) {
                $r = $client->finish($s, 20.0);
                $this->assertTrue($r['ended'] && !$r['timed_out'], 'request ended: ' . substr($r['body'] . $r['stderr'], 0, 2000));
                $out = $this->result($r['body']);
                $this->assertSame(1, $out['done'], 'lock+release done');
                $pids[$out['pid']] = true;
            }
        }
        return array_keys($pids);
    }

    /** metrics() from every worker at once (each busy with one request): pid => text. */
    private function fromEachWorker(FpmHarness $fpm, ?string $pool = null, int $workers = self::WORKERS): array
    {
        $client = $fpm->client($pool);
        $socks = [];
        for ($k = 0; $k < $workers; $k++) {
            $socks[] = $client->start(FpmHarness::handler('metrics'), ['RL_SLEEP_MS' => '400']);
        }
        $out = [];
        foreach ($socks as $s) {
            $r = $client->finish($s, 20.0);
            $this->assertTrue($r['ended'], 'metrics request ended: ' . substr($r['body'], 0, 2000));
            $res = $this->result($r['body']);
            $out[$res['pid']] = $res['metrics'];
        }
        return $out;
    }

    private function parsed(string $text): array
    {
        $m = rlm_parse($text);
        $this->assertSame([], $m['problems'], 'the exposition is well formed');
        $this->assertSame([], rlm_missing($m), 'every family of docs/api.md "Metrics"');
        return $m;
    }

    private function acq(array $m): int
    {
        return rlm_counter($m, 'redlock_acquisitions_total', ['mode' => 'exclusive']);
    }

    /** The same figures from every worker, the pool's: checked well formed (and by promtool when installed). */
    private function poolFigures(FpmHarness $fpm, ?string $pool = null, int $workers = self::WORKERS, ?string &$text = null): array
    {
        $texts = $this->fromEachWorker($fpm, $pool, $workers);
        $this->assertCount($workers, $texts, "answered by $workers different workers");
        $figs = array_map(fn($t) => rlm_figures($this->parsed($t)), $texts);
        foreach ($figs as $pid => $f) {
            $this->assertSame(reset($figs), $f, "worker $pid reads the same totals as the others");
        }
        $text = reset($texts);
        $pt = rlm_promtool($text);
        if ($pt !== null) {
            $this->assertSame(0, $pt[0], "promtool check metrics:\n" . $pt[1]);
        }
        $m = $this->parsed($text);
        $this->assertSame(1.0, rlm_value($m, 'redlock_metrics_shared', 'redlock_metrics_shared'));
        return $m;
    }

    private function assertCounted(array $before, array $after, int $n): void
    {
        $this->assertSame($n, $this->acq($after) - $this->acq($before), "acquisitions exactly +$n");
        foreach (['releases', 'attempts'] as $c) {
            $this->assertSame($n, rlm_counter($after, "redlock_{$c}_total") - rlm_counter($before, "redlock_{$c}_total"), "$c exactly +$n");
        }
        $this->assertSame(0, rlm_counter($after, 'redlock_conflicts_total') - rlm_counter($before, 'redlock_conflicts_total'));
        foreach (['wait', 'hold'] as $h) {
            $d = rlm_value($after, "redlock_{$h}_seconds", "redlock_{$h}_seconds_count")
                - rlm_value($before, "redlock_{$h}_seconds", "redlock_{$h}_seconds_count");
            $this->assertSame((float)$n, $d, "redlock_{$h}_seconds observed $n times");
        }
        // every node has its series; per node one SET and one release per
        // cycle (replies a call did not wait for may be read by a later call)
        $nodes = TestNodes::$nodes;
        sort($nodes);
        foreach (['redlock_node_requests_total', 'redlock_node_latency_seconds'] as $f) {
            $seen = rlm_nodes($after, $f);
            sort($seen);
            $this->assertSame($nodes, $seen, "$f: every node");
        }
        $answered = 0;
        foreach ($nodes as $node) {
            $ok = rlm_counter($after, 'redlock_node_requests_total', ['node' => $node, 'result' => 'ok'])
                - rlm_counter($before, 'redlock_node_requests_total', ['node' => $node, 'result' => 'ok']);
            $this->assertLessThanOrEqual(2 * $n, $ok, "$node: at most 2 requests per cycle");
            $this->assertGreaterThanOrEqual(2 * $n - 2 * self::WORKERS, $ok, "$node: ok requests");
            $answered += rlm_value($after, 'redlock_node_latency_seconds', 'redlock_node_latency_seconds_count', ['node' => $node])
                - rlm_value($before, 'redlock_node_latency_seconds', 'redlock_node_latency_seconds_count', ['node' => $node]);
        }
        $this->assertGreaterThanOrEqual(3 * 2 * $n, $answered, 'every call decided by a quorum of answers');
    }

    /** 200 requests, one lock+release each: every worker's metrics() has the same totals, exactly 200 more. */
    public function testPoolTotalsFromEveryWorker(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm(['workers' => self::WORKERS]);
        $before = $this->poolFigures($fpm);
        $pids = $this->cycles($fpm, $this->res('pool'), 200);
        $this->assertGreaterThanOrEqual(2, count($pids), 'the cycles ran on several workers');
        $after = $this->poolFigures($fpm);
        $this->assertCounted($before, $after, 200);
        self::metric(sprintf('metrics: 200 cycles on %d workers, one total', count($pids)));
    }

    /** A worker SIGKILLed in the middle of its lock/release loop: the table stays consistent and keeps counting. */
    public function testWorkerKilledMidRequests(): void
    {
        $this->requireExtension();
        $fpm = $this->startFpm(['workers' => self::WORKERS]);
        $res = $this->res('kill');
        $client = $fpm->client();
        $socks = [];
        for ($k = 0; $k < self::WORKERS; $k++) {
            $socks[] = $client->start(FpmHarness::handler('metrics'),
                ['RL_NODES' => $this->nodesParam(), 'RL_RESOURCE' => $res, 'RL_SECONDS' => '2']);
        }
        usleep(700000); // every worker is in its loop (each busy with one request)
        $workers = $fpm->workerPids();
        $this->assertCount(self::WORKERS, $workers);
        $victim = $workers[1];
        posix_kill($victim, SIGKILL);
        $killed = 0;
        foreach ($socks as $s) {
            $r = $client->finish($s, 20.0);
            $killed += $r['ended'] ? 0 : 1;
        }
        $this->assertSame(1, $killed, 'one request was cut by the kill');
        // the master replaces the worker (bounded)
        $back = TestNodes::waitFor(fn() => count($fpm->workerPids()) === self::WORKERS
            && !in_array($victim, $fpm->workerPids(), true), 5.0);
        $this->assertNotFalse($back, 'the master started a new worker');

        $before = $this->poolFigures($fpm);
        $this->assertGreaterThan(0, $this->acq($before));
        $wait = rlm_hist_series($before['families'], 'redlock_wait_seconds')['[]'];
        $this->assertLessThanOrEqual(1, abs($wait['count'] - $this->acq($before)), 'a worker dies between two adds at most once');
        $this->assertSame(5.0, rlm_value($before, 'redlock_metrics_node_slots', 'redlock_metrics_node_slots'), 'one slot per node');
        $this->cycles($fpm, $res, 200);
        $after = $this->poolFigures($fpm);
        $this->assertCounted($before, $after, 200);
        $this->assertSame(5.0, rlm_value($after, 'redlock_metrics_node_slots', 'redlock_metrics_node_slots'));
    }

    /**
     * Two pools of one master, running as nobody and as www-data, each locking
     * its own resources on its own nodes (two of five shared): each pool's
     * metrics() shows its own resource names, nodes and counts only, the same
     * from each of its workers, and a worker of one cannot open the other's table.
     */
    public function testPoolsOfTwoUsersSeeOnlyTheirOwn(): void
    {
        $this->requireExtension();
        if (posix_geteuid() !== 0) {
            $this->markTestSkipped('php-fpm runs pools as other users only as root');
        }
        $users = ['a' => 'nobody', 'b' => 'www-data'];
        foreach ($users as $u) {
            if (posix_getpwnam($u) === false) {
                $this->markTestSkipped("no user $u");
            }
        }
        $all = TestNodes::$nodes;
        $this->assertGreaterThanOrEqual(4, count($all));
        $pool = [
            'a' => ['res' => 'reset-password-customer4711', 'nodes' => array_slice($all, 0, 3), 'n' => 12],
            'b' => ['res' => 'payroll-export-www', 'nodes' => array_slice($all, -3), 'n' => 20],
        ];
        // the users' table directories this test makes, removed at its end
        $dirs = array_filter(array_map(fn($u) => '/dev/shm/redlock-metrics.' . posix_getpwnam($u)['uid'], $users),
            fn($d) => !file_exists($d));
        $fpm = $this->startFpm(['pools' => array_map(fn($u) => ['user' => $u, 'workers' => 2], $users)]);
        foreach ($pool as $name => $p) {
            // (a worker has its title once it set itself up: bounded wait)
            $this->assertNotFalse(TestNodes::waitFor(fn() => count($fpm->poolWorkerPids($name)) === 2, 5.0), "pool $name: 2 workers");
            // (restart_grace 0: nodes an earlier test restarted vote at once; this test is not about restarts)
            $pids = $this->cycles($fpm, $p['res'], $p['n'], $name, 2,
                ['RL_NODES' => implode(',', $p['nodes']), 'RL_OPTS' => json_encode(['restart_grace' => 0])]);
            $this->assertCount(2, $pids, "pool $name: the cycles ran on both workers");
        }
        foreach ($pool as $name => $p) {
            $other = $pool[$name === 'a' ? 'b' : 'a'];
            $m = $this->poolFigures($fpm, $name, 2, $text);
            $this->assertSame($p['n'], $this->acq($m), "pool $name: its own acquisitions only");
            $this->assertSame($p['n'], rlm_counter($m, 'redlock_releases_total'), "pool $name: its own releases only");
            $this->assertSame([$p['res']], rlm_prefixes($m, 'redlock_resource_acquisitions_total'),
                "pool $name: its own resource prefix only");
            $this->assertStringNotContainsString($other['res'], $text, "pool $name: nothing of the other pool's names");
            foreach (['redlock_node_requests_total', 'redlock_node_latency_seconds'] as $f) {
                $seen = rlm_nodes($m, $f);
                sort($seen);
                $want = $p['nodes'];
                sort($want);
                $this->assertSame($want, $seen, "pool $name, $f: its own nodes only");
            }
            foreach (array_diff($other['nodes'], $p['nodes']) as $node) {
                $this->assertStringNotContainsString("\"$node\"", $text, "pool $name: not the other pool's node $node");
            }
            // on a node both use: this pool's round trips only (a SET and a release per cycle)
            $shared = array_values(array_intersect($p['nodes'], $other['nodes']))[0];
            $ok = rlm_counter($m, 'redlock_node_requests_total', ['node' => $shared, 'result' => 'ok']);
            $this->assertLessThanOrEqual(2 * $p['n'], $ok, "pool $name: $shared counts its requests only");
        }
        // www-data's table: a worker of its pool can list its directory and open it, one of nobody's cannot
        $dir = '/dev/shm/redlock-metrics.' . posix_getpwnam('www-data')['uid'] . '/';
        $files = glob($dir . $fpm->pid . '-*');
        $this->assertCount(1, $files, "one table of www-data's workers in $dir");
        foreach (['b' => [true, true], 'a' => [false, false]] as $name => $want) {
            $r = $fpm->client($name)->request(FpmHarness::handler('metrics'), ['RL_PROBE' => "$dir,{$files[0]}"], 10.0);
            $this->assertSame($want, $this->result($r['body'])['probe'], "pool $name lists $dir and opens {$files[0]}");
        }
        self::metric(sprintf('metrics: pools as nobody and www-data, %d and %d cycles, each its own', $pool['a']['n'], $pool['b']['n']));
        $fpm->stop(); // removes its tables
        foreach ($dirs as $d) {
            @rmdir($d);
        }
    }
}
