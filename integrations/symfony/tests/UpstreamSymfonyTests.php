<?php
declare(strict_types=1);

namespace RedLock\Symfony\Tests;

use Composer\InstalledVersions;

/**
 * Symfony's own store conformance tests (AbstractStoreTestCase and the
 * expiring, blocking and shared-lock traits). Composer's dist packages leave out
 * symfony/lock's Tests/; unmodified copies for 6.4 and 7.x are read from
 * ../shared/reference/symfony-lock-tests/ (next to the checkout, or
 * $REDLOCK_SHARED_DIR/reference/symfony-lock-tests/). When
 * absent, UpstreamStoreTest reports itself skipped with the reason.
 * symfony/lock 7.x ships AbstractStoreTestCase itself (Symfony\Component\Lock\Test).
 */
final class UpstreamSymfonyTests
{
    public static string $skipReason = '';
    public static string $version = '';
    public static string $base = '';

    public static function load(): bool
    {
        static $loaded = null;
        if ($loaded !== null) {
            return $loaded;
        }
        self::$version = (string) InstalledVersions::getPrettyVersion('symfony/lock');
        $major = (int) ltrim(self::$version, 'v');
        $dir = match ($major) { 6 => '6.4', 7 => '7.x', default => null };
        // shared/ is the checkout's ../shared, or REDLOCK_SHARED_DIR (as tests/harness/hiredis1, tests/harness/packaging)
        $shared = getenv('REDLOCK_SHARED_DIR') ?: \dirname(__DIR__, 3) . '/../shared';
        $ref = "$shared/reference/symfony-lock-tests/$dir";
        if ($dir === null) {
            self::$skipReason = 'no copy of the upstream store tests for symfony/lock ' . self::$version;
            return $loaded = false;
        }
        foreach (['AbstractStoreTestCase', 'ExpiringStoreTestTrait', 'BlockingStoreTestTrait', 'SharedLockStoreTestTrait'] as $f) {
            if (!is_file("$ref/$f.php")) {
                self::$skipReason = "Symfony's store tests are not in Composer's dist packages, and $ref/$f.php is absent (set REDLOCK_SHARED_DIR if shared/ is not the checkout's ../shared)";
                return $loaded = false;
            }
        }
        require_once "$ref/ExpiringStoreTestTrait.php";
        require_once "$ref/BlockingStoreTestTrait.php";
        require_once "$ref/SharedLockStoreTestTrait.php";
        // the package's own AbstractStoreTestCase when it ships one (7.x), else the copy
        if (class_exists(\Symfony\Component\Lock\Test\AbstractStoreTestCase::class)) {
            self::$base = \Symfony\Component\Lock\Test\AbstractStoreTestCase::class;
        } else {
            require_once "$ref/AbstractStoreTestCase.php";
            self::$base = \Symfony\Component\Lock\Tests\Store\AbstractStoreTestCase::class;
        }
        class_alias(self::$base, UpstreamStoreTestCase::class);
        return $loaded = true;
    }
}
