<?php
declare(strict_types=1);

namespace RedLock\Symfony\Tests;

use PHPUnit\Framework\TestCase;
use RedLock\Symfony\RedLockSemaphoreStore;
use Symfony\Component\Semaphore\Key;
use Symfony\Component\Semaphore\PersistingStoreInterface;
use Symfony\Component\Semaphore\Semaphore;

/*
 * symfony/semaphore's own store tests (AbstractStoreTestCase, unmodified, from
 * ../shared/reference/symfony-semaphore-tests/: Composer packages leave tests out)
 * against RedLockSemaphoreStore, as upstream's RedisStoreTest runs them.
 */
$shared = getenv('REDLOCK_SHARED_DIR') ?: \dirname(__DIR__, 3) . '/../shared';
$ref = "$shared/reference/symfony-semaphore-tests/AbstractStoreTestCase.php";
if (!is_file($ref)) {
    final class UpstreamSemaphoreStoreTest extends TestCase
    {
        public function testUpstreamStoreTests(): void
        {
            $this->markTestSkipped('symfony/semaphore\'s store tests are not in its Composer package, and '
                . 'reference/symfony-semaphore-tests/AbstractStoreTestCase.php is absent from shared/');
        }
    }

    return;
}
require_once $ref;

final class UpstreamSemaphoreStoreTest extends \Symfony\Component\Semaphore\Tests\Store\AbstractStoreTestCase
{
    protected function getStore(): PersistingStoreInterface
    {
        return new RedLockSemaphoreStore(new \RedLock(\TestNodes::$nodes, ['prefix' => \IntegrationSupport::prefix('semaphore')]));
    }

    /** Beyond upstream: the component's Semaphore over the store, two processes' worth of keys. */
    public function testSemaphoreComponent(): void
    {
        $store = $this->getStore();
        $a = new Semaphore(new Key(__METHOD__, 2), $store, 5.0, false);
        $b = new Semaphore(new Key(__METHOD__, 2), $store, 5.0, false);
        $c = new Semaphore(new Key(__METHOD__, 2), $store, 5.0, false);
        $this->assertTrue($a->acquire());
        $this->assertTrue($b->acquire());
        $this->assertFalse($c->acquire());
        $this->assertTrue($a->isAcquired());
        $a->refresh(10.0);
        $this->assertGreaterThan(9.0, $a->getRemainingLifetime());
        $a->release();
        $this->assertFalse($a->isAcquired());
        $this->assertTrue($c->acquire());
        $b->release();
        $c->release();
    }

    /** Another limit while permits are held: the acquisition fails, naming both limits. */
    public function testLimitMismatch(): void
    {
        $store = $this->getStore();
        $k = new Key(__METHOD__, 2);
        $store->save($k, 10);
        try {
            $store->save(new Key(__METHOD__, 3), 10);
            $this->fail('a second limit was accepted');
        } catch (\Symfony\Component\Semaphore\Exception\SemaphoreAcquiringException $e) {
            $this->assertStringContainsString('limit of 2, not 3', $e->getMessage());
        } finally {
            $store->delete($k);
        }
    }
}
