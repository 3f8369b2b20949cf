<?php
// rtt.php HOST:PORT N [VALUE_BYTES] — median/p99 PING round trip (µs) through phpredis,
// plus a SET/GET round-trip check of a VALUE_BYTES value. Prints JSON. Bounded by N.
[$host, $port] = explode(':', $argv[1]);
$n = max(1, min(100000, (int)($argv[2] ?? 200)));
$bytes = (int)($argv[3] ?? 0);
$r = new Redis();
$r->connect($host, (int)$port, 2.0);
$r->setOption(Redis::OPT_READ_TIMEOUT, 5.0);
$r->ping();
$lat = [];
for ($i = 0; $i < $n; $i++) {
    $t = hrtime(true);
    $r->ping();
    $lat[] = (hrtime(true) - $t) / 1000;
}
sort($lat);
$ok = true;
if ($bytes > 0) {
    $v = random_bytes($bytes);
    $k = 'rtt:' . getmypid();
    $r->set($k, $v);
    $ok = $r->get($k) === $v;
    $r->del($k);
}
echo json_encode(['median_us' => round($lat[intdiv($n, 2)]), 'p99_us' => round($lat[(int)floor(0.99 * ($n - 1))]),
    'min_us' => round($lat[0]), 'payload_ok' => $ok]), "\n";
