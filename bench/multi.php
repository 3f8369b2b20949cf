<?php
// bench/multi.php -- lockAll(), read locks (shared) and semaphore() permits against lock(): uncontended acquire+release cycles,
// side by side in one run (interleaved rounds, the same nodes and connections).
//
//   php -d extension=modules/redlock.so bench/multi.php [CYCLES_PER_ROUND] [ROUNDS]
//
// Nodes: $REDLOCK_TEST_NODES (tests/nodes.sh start 5; loopback). Prints, per shape,
// the median cycle time in us over the rounds and its ratio to the single lock().
declare(strict_types=1);

$nodes = array_filter(explode(',', (string) getenv('REDLOCK_TEST_NODES')));
if (count($nodes) < 3) {
    fwrite(STDERR, "multi.php: set REDLOCK_TEST_NODES (tests/nodes.sh start 5)\n");
    exit(2);
}
$cycles = (int) ($argv[1] ?? 500);
$rounds = (int) ($argv[2] ?? 7);
$rl = new RedLock($nodes, ['retry_count' => 0]);
$run = 'bench:multi:' . bin2hex(random_bytes(4));
$shapes = [
    'lock()' => fn() => $rl->lock("$run:r0", 10000),
    'lockAll(2)' => fn() => $rl->lockAll(["$run:r0", "$run:r1"], 10000),
    'lockAll(10)' => fn() => $rl->lockAll(array_map(fn($i) => "$run:r$i", range(0, 9)), 10000),
    'shared' => fn() => $rl->lock("$run:sh", 10000, ['shared' => true]),
    'permit/3' => fn() => $rl->semaphore("$run:s3", 3, 10000),
    'permit/100' => fn() => $rl->semaphore("$run:s100", 100, 10000),
];
$times = array_fill_keys(array_keys($shapes), []);
foreach ($shapes as $f) {   // warm-up: connections, scripts loaded
    for ($i = 0; $i < 50; $i++) { $f()?->release(); }
}
for ($r = 0; $r < $rounds; $r++) {
    foreach ($shapes as $name => $f) {
        $t = hrtime(true);
        for ($i = 0; $i < $cycles; $i++) {
            $l = $f();
            if (!$l || !$l->release()) {
                fwrite(STDERR, "multi.php: $name failed\n");
                exit(1);
            }
        }
        $times[$name][] = (hrtime(true) - $t) / 1e3 / $cycles;
    }
}
$median = function (array $v): float { sort($v); return $v[intdiv(count($v), 2)]; };
$base = $median($times['lock()']);
printf("%-12s %10s %8s   (%d nodes, %d rounds x %d cycles, median)\n", 'shape', 'us/cycle', 'ratio', count($nodes), $rounds, $cycles);
foreach ($times as $name => $v) {
    $m = $median($v);
    printf("%-12s %10.1f %8.2f\n", $name, $m, $m / $base);
}
