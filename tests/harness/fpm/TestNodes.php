<?php
declare(strict_types=1);

/**
 * The Redis lock nodes the tests run against.
 *
 * - REDLOCK_TEST_NODES set (the normal case, scripts/test.sh sources the env
 *   file written by tests/nodes.sh): use them; restart() goes through
 *   tests/nodes.sh with REDLOCK_NODES_DIR.
 * - unset: the bootstrap starts its own with tests/nodes.sh in a private
 *   state dir and stops them at the end.
 * tests/nodes.sh is the one launcher of every suite.
 */
final class TestNodes
{
    /** @var list<string> host:port */
    public static array $nodes = [];
    /** @var list<string> host:port of the TLS lock nodes (tests/nodes.sh start-tls), [] when none */
    public static array $tlsNodes = [];
    /** their certificates (ca.crt, client.crt, ...), '' when none */
    public static string $tlsDir = '';
    /** why there are no TLS nodes */
    public static string $tlsWhy = '';
    private static ?string $nodesDir = null;
    private static bool $ownedByUs = false;
    private static int $ownerPid = 0;             // a forked child never stops them
    private static string $mode = 'env';          // env | nodes.sh

    public static function nodesSh(): string
    {
        return dirname(__DIR__, 2) . '/nodes.sh';
    }

    public static function init(): void
    {
        $env = getenv('REDLOCK_TEST_NODES');
        if ($env !== false && $env !== '') {
            self::$nodes = array_values(array_filter(array_map('trim', explode(',', $env))));
            $d = getenv('REDLOCK_NODES_DIR');
            self::$nodesDir = ($d !== false && $d !== '') ? $d : '/tmp/redlock-nodes';
            self::$mode = 'env';
            self::tlsFrom(fn($k) => getenv($k) ?: '');
            if (self::$tlsNodes === []) {
                self::$tlsWhy = 'REDLOCK_TEST_TLS_NODES not set (tests/nodes.sh start-tls, then source its env)';
            }
            return;
        }
        self::$ownedByUs = true;
        self::$ownerPid = getmypid();
        self::$nodesDir = sys_get_temp_dir() . '/redlock-fpm-nodes-' . getmypid();
        @mkdir(self::$nodesDir, 0700, true);
        self::$mode = 'nodes.sh';
        [$rc, $out] = self::sh('start 5', 60);
        if ($rc !== 0 || !is_file(self::$nodesDir . '/env')) {
            throw new RuntimeException("tests/nodes.sh start failed (rc=$rc): $out");
        }
        $envText = file_get_contents(self::$nodesDir . '/env');
        if (!preg_match('/REDLOCK_TEST_NODES=["\']?([^"\'\s]+)/', $envText, $m)) {
            throw new RuntimeException("no REDLOCK_TEST_NODES in {$envText}");
        }
        self::$nodes = explode(',', $m[1]);
        putenv('REDLOCK_TEST_NODES=' . $m[1]);
        putenv('REDLOCK_NODES_DIR=' . self::$nodesDir);
        register_shutdown_function([self::class, 'shutdown']);
        // TLS nodes too (start-tls keeps the plain ones)
        [$rc, $out] = self::sh('start-tls', 60);
        if ($rc !== 0) {
            self::$tlsWhy = "tests/nodes.sh start-tls failed (rc=$rc): $out";
            return;
        }
        $vars = [];
        foreach (file(self::$nodesDir . '/env', FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) ?: [] as $line) {
            if (preg_match('/^(REDLOCK_TEST_TLS_[A-Z_]+)=(.*)$/', $line, $mm)) {
                $vars[$mm[1]] = $mm[2];
                putenv("{$mm[1]}={$mm[2]}");
            }
        }
        self::tlsFrom(fn($k) => $vars[$k] ?? '');
    }

    private static function tlsFrom(callable $get): void
    {
        $list = (string)$get('REDLOCK_TEST_TLS_NODES');
        self::$tlsNodes = $list === '' ? [] : array_values(array_filter(array_map('trim', explode(',', $list))));
        self::$tlsDir = (string)$get('REDLOCK_TEST_TLS_DIR');
    }

    /** A probe speaking TLS to a TLS node, trusting the test CA, with the client certificate. */
    public static function tlsProbe(string $addr): RedisProbe
    {
        [$h, $p] = explode(':', $addr, 2);
        return new RedisProbe($h, (int)$p, 2.0, [
            'cafile' => self::$tlsDir . '/ca.crt',
            'local_cert' => self::$tlsDir . '/client.crt',
            'local_pk' => self::$tlsDir . '/client.key',
            'peer_name' => 'localhost',
        ]);
    }

    public static function mode(): string
    {
        return self::$mode;
    }

    public static function shutdown(): void
    {
        if (!self::$ownedByUs || getmypid() !== self::$ownerPid) {
            return;
        }
        self::$ownedByUs = false;
        self::sh('stop', 30);
        FpmHarness::rmTree((string)self::$nodesDir);
    }

    /** @return array{0:int,1:string} */
    private static function sh(string $args, int $timeout): array
    {
        $cmd = 'REDLOCK_NODES_DIR=' . escapeshellarg((string)self::$nodesDir)
            . ' timeout ' . $timeout . ' bash ' . escapeshellarg(self::nodesSh()) . ' ' . $args . ' 2>&1';
        $out = [];
        $rc = 0;
        exec($cmd, $out, $rc);
        return [$rc, implode("\n", $out)];
    }

    public static function canRestart(): bool
    {
        return is_file(self::nodesSh());
    }

    /** Restart node $i (1-based) on the same port; returns when it answers PING. */
    public static function restart(int $i): void
    {
        [$rc, $out] = self::sh("restart $i", 30);
        if ($rc !== 0) {
            throw new RuntimeException("nodes.sh restart $i failed (rc=$rc): $out");
        }
        $p = RedisProbe::fromAddr(self::$nodes[$i - 1]);
        $deadline = microtime(true) + 5;
        while (!$p->ping()) {
            if (microtime(true) > $deadline) {
                throw new RuntimeException("node $i did not come back");
            }
            usleep(20000);
        }
        $p->close();
    }

    public static function probe(int $i): RedisProbe
    {
        return RedisProbe::fromAddr(self::$nodes[$i]);
    }

    /** @return list<RedisProbe> one per node, 0-based */
    public static function probes(): array
    {
        return array_map(fn($a) => RedisProbe::fromAddr($a), self::$nodes);
    }

    /** Value of $key on each node (null where absent), 0-based. */
    public static function values(string $key): array
    {
        $v = [];
        foreach (self::probes() as $p) {
            try {
                $v[] = $p->get($key);
            } catch (Throwable $e) {
                $v[] = 'ERROR: ' . $e->getMessage();
            }
            $p->close();
        }
        return $v;
    }

    /** Number of nodes holding $key with exactly $token. */
    public static function holders(string $key, string $token): int
    {
        return count(array_filter(self::values($key), fn($v) => $v === $token));
    }

    /** Number of nodes holding $key at all. */
    public static function present(string $key): int
    {
        return count(array_filter(self::values($key), fn($v) => $v !== null));
    }

    public static function delAll(string $key): void
    {
        foreach (self::probes() as $p) {
            try {
                $p->del($key);
            } catch (Throwable $e) {
            }
            $p->close();
        }
    }

    /** Wait (bounded) until $cond() is true; returns its last value. */
    public static function waitFor(callable $cond, float $seconds, float $step = 0.02): mixed
    {
        $deadline = microtime(true) + $seconds;
        do {
            $v = $cond();
            if ($v) {
                return $v;
            }
            usleep((int)($step * 1e6));
        } while (microtime(true) < $deadline);
        return $cond();
    }
}
