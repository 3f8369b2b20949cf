<?php
// This extension: RedLock::lock() + Lock::release() (retry_count 0; defaults otherwise).
declare(strict_types=1);
require __DIR__ . '/common.php';
$a = bench_args();
if (!extension_loaded('redlock')) {
    bench_skip('ext', 'redlock extension not loaded (not built yet?)');
}
$rl = new RedLock($a['nodes'], ['retry_count' => 0]);
bench_run('ext', $a,
    fn (string $k) => $rl->lock($k, 10000),
    fn (RedLock\Lock $l): bool => $l->release());
