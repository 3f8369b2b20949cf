<?php
// This extension with 'fencing' => true: lock() adds two quorum phases (INCR, raise)
// after the SET, so a lock+release cycle is 4 parallel round trips instead of 2.
declare(strict_types=1);
require __DIR__ . '/common.php';
$a = bench_args();
if (!extension_loaded('redlock')) {
    bench_skip('ext_fenced', 'redlock extension not loaded (not built yet?)');
}
$rl = new RedLock($a['nodes'], ['retry_count' => 0, 'fencing' => true]);
bench_run('ext_fenced', $a,
    function (string $k) use ($rl): ?RedLock\Lock {
        $l = $rl->lock($k, 10000);
        return $l !== null && is_int($l->fence) ? $l : null;   // no fence: a failed cycle
    },
    fn (RedLock\Lock $l): bool => $l->release());
