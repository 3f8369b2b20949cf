<?php
declare(strict_types=1);

namespace RedLock\Symfony\Tests;

use PHPUnit\Framework\TestCase;
use RedLock\Symfony\RedLockStore;
use Symfony\Component\Lock\Exception\InvalidArgumentException;
use Symfony\Component\Lock\Exception\InvalidTtlException;
use Symfony\Component\Lock\Exception\LockAcquiringException;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockExpiredException;
use Symfony\Component\Lock\Exception\LockStorageException;
use Symfony\Component\Lock\Key;
use Symfony\Component\HttpKernel\DependencyInjection\ServicesResetter;
use Symfony\Component\Lock\LockFactory;
use Symfony\Contracts\Service\ResetInterface;

/** What the adapter adds beyond Symfony's store contract: state in the Key, processes, defaults, errors. */
final class RedLockStoreTest extends TestCase
{
    private function prefixed(string $resource): string
    {
        return \IntegrationSupport::prefix('symfony') . $resource;
    }

    private function resource(): string
    {
        return 'sf:' . $this->getName(false) . ':' . bin2hex(random_bytes(4));
    }

    public function testKeyStateIsPlainAndSerializable(): void
    {
        $store = StoreFactory::create(['fencing' => true]);
        $key = new Key($this->resource());
        $store->save($key);
        $copy = unserialize(serialize($key));
        $this->assertTrue($store->exists($copy));
        $this->assertIsInt(RedLockStore::getFence($copy));
        $this->assertGreaterThan(0, RedLockStore::getFence($copy));
        $this->assertSame(RedLockStore::getFence($key), RedLockStore::getFence($copy));
        // the nodes hold the token the Key carries
        $this->assertSame(5, \TestNodes::present($this->prefixed((string) $key)));
        $store->delete($copy);
        $this->assertFalse($store->exists($key));
        $this->assertSame(0, \TestNodes::present($this->prefixed((string) $key)));
    }

    public function testFenceGrowsAndIsNullWithoutFencing(): void
    {
        $store = StoreFactory::create(['fencing' => true]);
        $a = new Key($this->resource());
        $store->save($a);
        $b = new Key($this->resource());
        $store->save($b);
        $this->assertGreaterThan(RedLockStore::getFence($a), RedLockStore::getFence($b));
        $plain = new Key($this->resource());
        StoreFactory::create()->save($plain);
        $this->assertNull(RedLockStore::getFence($plain));
        $this->assertNull(RedLockStore::getFence(new Key('never-saved')));
        $store->delete($a);
        $store->delete($b);
        $store->delete($plain);
    }

    /** Acquired with auto_release off: the lock outlives the process that took it; another process releases it. */
    public function testLockOutlivesProcessAndIsReleasedElsewhere(): void
    {
        $resource = $this->resource();
        $save = '$s = RedLock\Symfony\Tests\StoreFactory::create(); $k = new Symfony\Component\Lock\Key(' . var_export($resource, true) . ');'
            . ' $s->save($k); echo base64_encode(serialize($k));';
        [$rc, $out] = \IntegrationSupport::php("require " . var_export(__DIR__ . '/StoreFactory.php', true) . ";\n" . $save);
        $this->assertSame(0, $rc, $out);
        $key = unserialize(base64_decode($out));
        $this->assertInstanceOf(Key::class, $key);
        $store = StoreFactory::create();
        $this->assertTrue($store->exists($key), 'the lock is still held after the process that saved it ended');
        $this->assertSame(5, \TestNodes::present($this->prefixed($resource)));
        // and someone else cannot take it
        try {
            $store->save(new Key($resource));
            $this->fail('saved a held resource');
        } catch (LockConflictedException) {
        }
        $store->putOffExpiration($key, 5.0);
        $this->assertLessThanOrEqual(5.0, $key->getRemainingLifetime());
        $store->delete($key);
        $this->assertSame(0, \TestNodes::present($this->prefixed($resource)));
    }

    /** Symfony's non-blocking acquire wants an answer now: one attempt, not the extension's 3 retries. */
    public function testConflictIsAnsweredWithoutRetries(): void
    {
        $store = StoreFactory::create();
        $holder = new Key($this->resource());
        $store->save($holder);
        $t0 = hrtime(true);
        try {
            $store->save(new Key((string) $holder));
            $this->fail('saved a held resource');
        } catch (LockConflictedException) {
        }
        $ms = (hrtime(true) - $t0) / 1e6;
        $this->assertLessThan(150, $ms, 'a conflicting save() must not pay retry delays');
        $store->delete($holder);
    }

    public function testLockFactoryAcquireRefreshRelease(): void
    {
        $factory = new LockFactory(StoreFactory::create());
        $resource = $this->resource();
        $lock = $factory->createLock($resource, 30);
        $this->assertTrue($lock->acquire());
        $this->assertTrue($lock->isAcquired());
        $this->assertGreaterThan(29.0, $lock->getRemainingLifetime());
        $this->assertLessThanOrEqual(30.0, $lock->getRemainingLifetime());
        $other = $factory->createLock($resource, 30);
        $this->assertFalse($other->acquire());
        $lock->refresh(60);
        $this->assertGreaterThan(59.0, $lock->getRemainingLifetime());
        $pttl = array_map(fn($p) => $p->pttl($this->prefixed($resource)), \TestNodes::probes());
        foreach ($pttl as $v) {
            $this->assertGreaterThan(59000, $v);
        }
        $lock->release();
        $this->assertFalse($lock->isAcquired());
        $this->assertTrue($other->acquire());
        $other->release();
    }

    /** waitAndSave(): lock() with wait, until the holder (another process) releases. */
    public function testBlockingAcquireWaitsForTheHolder(): void
    {
        $resource = $this->resource();
        $hold = '$s = RedLock\Symfony\Tests\StoreFactory::create(); $k = new Symfony\Component\Lock\Key(' . var_export($resource, true) . ');'
            . ' $s->save($k); echo "held\n"; usleep(400000); $s->delete($k);';
        $file = tempnam(sys_get_temp_dir(), 'rlsf');
        file_put_contents($file, "<?php\nrequire " . var_export(\dirname(__DIR__, 3) . '/tests/harness/integrations/support.php', true)
            . ";\nIntegrationSupport::init();\nrequire " . var_export(__DIR__ . '/StoreFactory.php', true) . ";\n" . $hold);
        register_shutdown_function(static fn () => @unlink($file));
        $cmd = [PHP_BINARY, '-d', 'extension=' . getenv('REDLOCK_SO'), '-f', $file];
        $proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        $this->assertIsResource($proc);
        stream_set_timeout($pipes[1], 10);
        $this->assertSame("held\n", fgets($pipes[1]));
        $factory = new LockFactory(StoreFactory::create());
        $lock = $factory->createLock($resource, 30);
        $this->assertFalse($lock->acquire(false));
        $t0 = hrtime(true);
        $this->assertTrue($lock->acquire(true));
        $ms = (hrtime(true) - $t0) / 1e6;
        // the holder keeps it about 400 ms, and we retry every 100-120 ms
        $this->assertGreaterThan(200, $ms);
        $this->assertLessThan(1500, $ms);
        $lock->release();
        fclose($pipes[1]);
        fclose($pipes[2]);
        proc_close($proc);
    }

    public function testPutOffExpiration(): void
    {
        $store = StoreFactory::create();
        $key = new Key($this->resource());
        // never saved: not ours
        try {
            $store->putOffExpiration($key, 10.0);
            $this->fail('put off an unsaved key');
        } catch (LockConflictedException) {
        }
        $store->save($key);
        // too short to count: expired (Symfony's rule), also for 1 ms
        foreach ([1e-6, 0.001] as $ttl) {
            try {
                $store->putOffExpiration($key, $ttl);
                $this->fail("put off by $ttl s");
            } catch (LockExpiredException) {
            }
            $this->assertTrue($key->isExpired());
            $key->resetLifetime();
            usleep(5000);
            $store->save($key);
        }
        // taken by someone else meanwhile: conflicted
        $admin = new \RedLock(\TestNodes::$nodes, ['prefix' => \IntegrationSupport::prefix('symfony')]);
        $this->assertTrue($admin->forceRelease((string) $key));
        $thief = $admin->lock((string) $key, 10000, ['retry_count' => 0]);
        $this->assertNotNull($thief);
        try {
            $store->putOffExpiration($key, 10.0);
            $this->fail('put off a taken lock');
        } catch (LockConflictedException) {
        }
        $this->assertFalse($store->exists($key));
        // delete() of a taken lock leaves the other owner's lock alone
        $store->delete($key);
        $this->assertTrue($thief->isHeld());
        $thief->release();
        try {
            $store->putOffExpiration($key, -1.0);
            $this->fail('negative ttl');
        } catch (InvalidTtlException|LockConflictedException) {
        }
    }

    public function testSaveTwiceKeepsTheLockAndRefreshesIt(): void
    {
        $store = StoreFactory::create(['ttl' => 2000]);
        $key = new Key($this->resource());
        $store->save($key);
        $store->putOffExpiration($key, 0.5);
        $store->save($key);
        $this->assertTrue($store->exists($key));
        // the second save() put the TTL back to the store's 2000 ms
        foreach (\TestNodes::probes() as $p) {
            $this->assertGreaterThan(1000, $p->pttl($this->prefixed((string) $key)));
        }
        $store->delete($key);
    }

    public function testQuorumFailuresAreSymfonyExceptions(): void
    {
        // 3 nodes, 2 of them closed ports: no quorum can answer
        $closed = [];
        for ($i = 0; $i < 2; $i++) {
            $s = stream_socket_server('tcp://127.0.0.1:0');
            $closed[] = stream_socket_get_name($s, false);
            fclose($s);
        }
        $redlock = new \RedLock([\TestNodes::$nodes[0], ...$closed], ['prefix' => \IntegrationSupport::prefix('symfony'), 'connect_timeout' => 100]);
        $store = new RedLockStore($redlock);
        $key = new Key($this->resource());
        try {
            $store->save($key);
            $this->fail('saved without a quorum');
        } catch (LockAcquiringException $e) {
            $this->assertInstanceOf(\RedLock\QuorumException::class, $e->getPrevious());
        }
        $key->setState(RedLockStore::class, ['token' => str_repeat('a', 40), 'fence' => null]);
        $this->expectException(LockStorageException::class);
        $store->exists($key);
    }

    public function testOptions(): void
    {
        foreach ([['token' => str_repeat('t', 20)], ['auto_release' => true]] as $bad) {
            try {
                StoreFactory::create($bad);
                $this->fail('accepted ' . json_encode($bad));
            } catch (InvalidArgumentException) {
            }
        }
        foreach ([0, -1, 2147483648, '300'] as $ttl) {
            try {
                StoreFactory::create(['ttl' => $ttl]);
                $this->fail("accepted ttl $ttl");
            } catch (InvalidTtlException) {
            }
        }
        // auto_release => false is what the store does anyway; a user wait is kept for save()
        $store = StoreFactory::create(['auto_release' => false, 'wait' => 300, 'retry_delay' => 50]);
        $holder = new Key($this->resource());
        StoreFactory::create()->save($holder);
        $t0 = hrtime(true);
        try {
            $store->save(new Key((string) $holder));
            $this->fail('saved a held resource');
        } catch (LockConflictedException) {
        }
        $this->assertGreaterThan(250, (hrtime(true) - $t0) / 1e6);
        StoreFactory::create()->delete($holder);
    }

    /**
     * Worker runtimes: kernel.reset between two requests releases what request end
     * would (the worker's auto_release locks), through the kernel's own resetter
     * (services_resetter, which calls reset() on every service tagged kernel.reset);
     * the store's locks outlive it, as they outlive request end under PHP-FPM.
     */
    public function testKernelResetReleasesTheWorkersAutoReleaseLocks(): void
    {
        $redlock = new \RedLock(\TestNodes::$nodes, ['prefix' => \IntegrationSupport::prefix('symfony')]);
        $store = new RedLockStore($redlock);
        $this->assertInstanceOf(ResetInterface::class, $store);
        $resetter = new ServicesResetter(new \ArrayIterator(['redlock.store' => $store]), ['redlock.store' => 'reset']);
        $key = new Key($this->resource());
        $mine = $this->resource();
        for ($request = 1; $request <= 3; $request++) {
            // a request of the worker: the application's own lock (auto_release), and a store lock
            $lock = $redlock->lock($mine, 60000);
            $this->assertNotNull($lock, "request $request: the lock survived the previous kernel.reset");
            if ($request === 1) {
                $store->save($key);
            }
            $this->assertTrue(\TestNodes::waitFor(fn() => \TestNodes::present($this->prefixed($mine)) === 5, 2.0));
            $resetter->reset();
            $this->assertTrue($lock->isReleased());
            $this->assertTrue(\TestNodes::waitFor(fn() => \TestNodes::present($this->prefixed($mine)) === 0, 2.0));
            $this->assertTrue($store->exists($key), "request $request: kernel.reset released the store's lock");
        }
        $store->delete($key);
        $this->assertFalse($store->exists($key));
    }
}
