<?php
// A sequential PHP RedLock over N persistent phpredis connections: what blog
// snippets do, done as well as PHP can (pconnect, 50 ms timeouts, CSPRNG token,
// script loaded once per connection, EVALSHA release, release-all on failure,
// validity check with drift, reconnect attempt on a broken/down node each call).
declare(strict_types=1);
require __DIR__ . '/common.php';
$a = bench_args();
if (!extension_loaded('redis')) {
    bench_skip('seq', 'phpredis (php-redis) not loaded');
}
const TTL = 10000;
const REL = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const DRIFT = 0.01;

final class SeqRedLock
{
    /** @var array<int, ?Redis> */
    private array $conns = [];
    private array $addr = [];
    private string $sha;
    private int $quorum;

    public function __construct(array $nodes)
    {
        foreach ($nodes as $i => $n) {
            $this->addr[$i] = bench_hostport($n);
            $this->conns[$i] = null;
        }
        $this->quorum = intdiv(count($nodes), 2) + 1;
        $this->sha = sha1(REL);
    }

    private function conn(int $i): ?Redis
    {
        if ($this->conns[$i] !== null) {
            return $this->conns[$i];
        }
        try {
            $r = new Redis();
            [$h, $p] = $this->addr[$i];
            if (!$r->pconnect($h, $p, 0.05)) {
                return null;
            }
            $r->setOption(Redis::OPT_READ_TIMEOUT, 0.05);
            $r->script('load', REL);
            return $this->conns[$i] = $r;
        } catch (RedisException) {
            return null;
        }
    }

    public function lock(string $key, int $ttl): ?array
    {
        $tok = bin2hex(random_bytes(20));
        $t0 = hrtime(true);
        $ok = 0;
        foreach ($this->conns as $i => $_) {
            $r = $this->conn($i);
            if (!$r) {
                continue;
            }
            try {
                if ($r->set($key, $tok, ['NX', 'PX' => $ttl])) {
                    $ok++;
                }
            } catch (RedisException) {
                $this->conns[$i] = null;
            }
        }
        $elapsedMs = (hrtime(true) - $t0) / 1e6;
        $validity = $ttl - $elapsedMs - ($ttl * DRIFT + 2);
        if ($ok >= $this->quorum && $validity > 0) {
            return [$key, $tok];
        }
        $this->unlock([$key, $tok]);
        return null;
    }

    public function unlock(array $h): bool
    {
        $n = 0;
        foreach ($this->conns as $i => $_) {
            $r = $this->conn($i);
            if (!$r) {
                continue;
            }
            try {
                $res = $r->evalSha($this->sha, $h, 1);
                if ($res === false && str_starts_with((string)$r->getLastError(), 'NOSCRIPT')) {
                    $r->clearLastError();
                    $res = $r->eval(REL, $h, 1);
                }
                if ($res === 1) {
                    $n++;
                }
            } catch (RedisException) {
                $this->conns[$i] = null;
            }
        }
        return $n >= $this->quorum;
    }
}

$rl = new SeqRedLock($a['nodes']);
bench_run('seq', $a, fn (string $k) => $rl->lock($k, TTL), fn (array $h) => $rl->unlock($h));
