<?php
// on_lost delivery latency: from the end of a lock's validity (the extension's
// own deadline timer) to the LockLostException caught in a busy PHP loop.
//   php -d extension=modules/redlock.so bench/on_lost_latency.php [runs] [ttl_ms]
// Nodes: REDLOCK_TEST_NODES (tests/nodes.sh start 5; set -a; . $REDLOCK_NODES_DIR/env).
// The validity's end is taken as (just after lock() returned) + remaining():
// remaining() counts whole ms, so each figure is exact to about 1 ms.
$nodes = explode(',', getenv('REDLOCK_TEST_NODES') ?: '');
if (!$nodes[0]) {
    fwrite(STDERR, "REDLOCK_TEST_NODES is not set\n");
    exit(2);
}
$runs = (int) ($argv[1] ?? 100);
$ttl = (int) ($argv[2] ?? 50);
$rl = new RedLock(array_map(fn($a) => 'redis://' . $a, $nodes), ['retry_count' => 0]);
$lat = [];
for ($i = 0; $i < $runs; $i++) {
    $l = $rl->lock('bench:on_lost:' . getmypid() . ':' . $i, $ttl, ['on_lost' => 'throw']);
    if (!$l) {
        fwrite(STDERR, "lock failed\n");
        exit(1);
    }
    $end = hrtime(true) + $l->remaining() * 1e6;
    $limit = hrtime(true) + ($ttl + 2000) * 1e6;
    try {
        while (hrtime(true) < $limit) {
        }
        fwrite(STDERR, "no exception within ttl + 2 s\n");
        exit(1);
    } catch (RedLock\LockLostException $e) {
        $lat[] = (hrtime(true) - $end) / 1e6;
    }
}
sort($lat);
$pct = fn($p) => $lat[min(count($lat) - 1, (int) floor($p / 100 * count($lat)))];
printf("on_lost 'throw', busy loop, %d runs, ttl %d ms: p50 %.2f ms, p99 %.2f ms, max %.2f ms, min %.2f ms\n",
    $runs, $ttl, $pct(50), $pct(99), end($lat), $lat[0]);
