<?php
declare(strict_types=1);

namespace RedLock\Symfony\Tests;

use PHPUnit\Framework\TestCase;
use Symfony\Component\Lock\PersistingStoreInterface;
use Symfony\Component\Lock\Tests\Store\BlockingStoreTestTrait;
use Symfony\Component\Lock\Tests\Store\ExpiringStoreTestTrait;
use Symfony\Component\Lock\Tests\Store\SharedLockStoreTestTrait;

if (!UpstreamSymfonyTests::load()) {
    final class UpstreamStoreTest extends TestCase
    {
        public function testUpstreamStoreTests(): void
        {
            $this->markTestSkipped(UpstreamSymfonyTests::$skipReason);
        }
    }

    return;
}

/**
 * Symfony's own store tests, unmodified, against RedLockStore: the
 * AbstractStoreTestCase tests, ExpiringStoreTestTrait, BlockingStoreTestTrait and
 * SharedLockStoreTestTrait, as upstream's RedisStoreTest runs them.
 */
final class UpstreamStoreTest extends UpstreamStoreTestCase
{
    use BlockingStoreTestTrait;
    use ExpiringStoreTestTrait;
    use SharedLockStoreTestTrait;

    protected function getClockDelay(): int
    {
        return 200000;
    }

    protected function getStore(): PersistingStoreInterface
    {
        return StoreFactory::create();
    }
}
