<?php
// The floor for any PHP caller: phpredis, ONE node, persistent connection,
// SET k v NX PX ttl + EVALSHA compare-and-delete (script loaded once, EVAL on NOSCRIPT).
declare(strict_types=1);
require __DIR__ . '/common.php';
$a = bench_args();
if (!extension_loaded('redis')) {
    bench_skip('floor', 'phpredis (php-redis) not loaded');
}
const TTL = 10000;
const REL = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
[$host, $port] = bench_hostport($a['nodes'][0]);
$r = new Redis();
$r->pconnect($host, $port, 0.05);
$r->setOption(Redis::OPT_READ_TIMEOUT, 0.05);
$sha = $r->script('load', REL);

bench_run('floor', $a,
    function (string $k) use ($r) {
        $tok = bin2hex(random_bytes(20));
        return $r->set($k, $tok, ['NX', 'PX' => TTL]) ? [$k, $tok] : null;
    },
    function (array $h) use ($r, $sha): bool {
        $res = $r->evalSha($sha, $h, 1);
        if ($res === false && str_starts_with((string)$r->getLastError(), 'NOSCRIPT')) {
            $r->clearLastError();
            $res = $r->eval(REL, $h, 1);
        }
        return $res === 1;
    });
