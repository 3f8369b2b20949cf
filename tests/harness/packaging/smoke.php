<?php
// smoke.php -- minimal end-to-end check of an installed redlock.so:
// construct against REDLOCK_TEST_NODES, lock, check, release; prints OK.
// Run: php -n -d extension=/path/to/redlock.so tests/harness/packaging/smoke.php
declare(strict_types=1);

function fail(string $why): never
{
    fwrite(STDERR, "smoke: FAIL: $why\n");
    exit(1);
}

if (!extension_loaded('redlock')) {
    fail('extension redlock is not loaded');
}
$env = getenv('REDLOCK_TEST_NODES');
if ($env === false || trim($env) === '') {
    fail('REDLOCK_TEST_NODES is not set (comma-separated 127.0.0.1:port list)');
}
$nodes = array_values(array_filter(array_map('trim', explode(',', $env)), 'strlen'));

try {
    $rl = new RedLock($nodes, ['retry_count' => 0, 'timeout' => 500, 'connect_timeout' => 500]);
    if ($rl->quorum() !== intdiv(count($nodes), 2) + 1) {
        fail('quorum() = ' . $rl->quorum() . ' for ' . count($nodes) . ' nodes');
    }
    $resource = 'smoke:' . bin2hex(random_bytes(8));
    $lock = $rl->lock($resource, 10000);
    if (!$lock instanceof RedLock\Lock) {
        fail('lock() did not acquire a free resource');
    }
    if (!preg_match('/^[0-9a-f]{40}$/', $lock->token) || $lock->resource !== $resource || $lock->ttl !== 10000) {
        fail('unexpected Lock properties: ' . json_encode([$lock->resource, $lock->token, $lock->ttl]));
    }
    if (!$lock->isValid() || $lock->remaining() <= 0 || $lock->remaining() > 10000) {
        fail('lock not valid right after lock(): remaining ' . $lock->remaining());
    }
    if (!$rl->isLocked($resource)) {
        fail('isLocked() false while held');
    }
    if ($rl->lock($resource, 10000) !== null) {
        fail('second lock() of a held resource acquired it');
    }
    if ($lock->release() !== true) {
        fail('release() did not return true');
    }
    if ($rl->isLocked($resource)) {
        fail('isLocked() true after release');
    }
} catch (Throwable $e) {
    fail(get_class($e) . ': ' . $e->getMessage());
}
echo "OK\n";
