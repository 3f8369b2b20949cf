<?php
declare(strict_types=1);

namespace RedLock\Laravel\Tests;

use Exception;
use Illuminate\Contracts\Cache\LockTimeoutException;
use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\Cache;
use Illuminate\Support\Sleep;
use PHPUnit\Framework\TestCase;
use RedLock\Laravel\RedLockLock;
use RedLock\Laravel\RedLockStore;

/**
 * What Laravel's own lock tests assert (tests/Integration/Cache/*CacheLockTest.php:
 * acquire and release, callbacks, block with a timeout, release by the owner
 * only, restoreLock, forceRelease, owner(), isOwnedByCurrentProcess(),
 * refresh), against the redlock driver in a minimal application, plus what
 * the driver adds (processes, TTL of locks without expiry, defaults).
 */
final class LockTest extends TestCase
{
    protected function setUp(): void
    {
        MinimalApp::boot();
        // as upstream: no lock left from an earlier test
        Cache::lock('foo')->forceRelease();
    }

    protected function tearDown(): void
    {
        Sleep::fake(false);
        Carbon::setTestNow(); // Sleep::fake(syncWithCarbon: true) froze it
        MinimalApp::boot();
        Cache::lock('foo')->forceRelease();
    }

    private function key(string $name): string
    {
        return \IntegrationSupport::prefix('laravel') . $name;
    }

    public function testLocksCanBeAcquiredAndReleased(): void
    {
        $lock = Cache::lock('foo', 10);
        $this->assertTrue($lock->get());
        $this->assertFalse(Cache::lock('foo', 10)->get());
        $lock->release();

        $lock = Cache::store('redlock')->lock('foo', 10);
        $this->assertTrue($lock->get());
        $this->assertFalse(Cache::store('redlock')->lock('foo', 10)->get());
        // another owner's release leaves it alone
        $this->assertFalse(Cache::lock('foo')->release());
        $this->assertFalse(Cache::lock('foo', 10)->get());
        $this->assertTrue($lock->release());
        $this->assertTrue(Cache::lock('foo', 10)->get());
    }

    public function testLocksCanRunCallbacks(): void
    {
        $this->assertSame('taylor', Cache::lock('foo', 10)->get(fn () => 'taylor'));
        // released after the callback
        $this->assertSame(0, \TestNodes::present($this->key('foo')));
        $held = Cache::lock('foo', 10);
        $this->assertTrue($held->get());
        $ran = false;
        $this->assertFalse(Cache::lock('foo', 10)->get(function () use (&$ran) {
            $ran = true;
        }));
        $this->assertFalse($ran);
        $held->release();
    }

    public function testLocksWithFailedCallbackAreReleased(): void
    {
        foreach (['get', 'block'] as $how) {
            try {
                $lock = Cache::lock('foo', 10);
                $how === 'get' ? $lock->get(fn () => throw new Exception('failed')) : $lock->block(1, fn () => throw new Exception('failed'));
                $this->fail('the exception was swallowed');
            } catch (Exception $e) {
                $this->assertSame('failed', $e->getMessage());
            }
            $this->assertTrue(Cache::lock('foo', 1)->get(), "released after a throwing $how() callback");
            Cache::lock('foo')->forceRelease();
        }
    }

    public function testLocksCanBlockForSeconds(): void
    {
        $this->assertSame('taylor', Cache::lock('foo', 10)->block(1, fn () => 'taylor'));
        Cache::lock('foo')->forceRelease();
        $this->assertTrue(Cache::lock('foo', 10)->block(1));
    }

    public function testBlockWaitsForAHolderInAnotherProcess(): void
    {
        $code = 'RedLock\Laravel\Tests\MinimalApp::boot(); $l = Illuminate\Support\Facades\Cache::lock("foo", 10);'
            . ' echo $l->get() ? "held\n" : "busy\n"; usleep(500000); $l->release();';
        $file = tempnam(sys_get_temp_dir(), 'rllv');
        file_put_contents($file, "<?php\nrequire " . var_export(\dirname(__DIR__, 3) . '/tests/harness/integrations/support.php', true)
            . ";\nIntegrationSupport::init();\nrequire " . var_export(__DIR__ . '/MinimalApp.php', true) . ";\n" . $code);
        register_shutdown_function(static fn () => @unlink($file));
        $proc = proc_open([PHP_BINARY, '-d', 'extension=' . getenv('REDLOCK_SO'), '-f', $file], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        stream_set_timeout($pipes[1], 10);
        $this->assertSame("held\n", fgets($pipes[1]));
        $t0 = hrtime(true);
        $this->assertSame('mine', Cache::lock('foo', 10)->betweenBlockedAttemptsSleepFor(50)->block(3, fn () => 'mine'));
        $ms = (hrtime(true) - $t0) / 1e6;
        $this->assertGreaterThan(300, $ms);
        $this->assertLessThan(2500, $ms);
        fclose($pipes[1]);
        fclose($pipes[2]);
        proc_close($proc);
    }

    public function testExceptionIfBlockCanNotAcquireLock(): void
    {
        Sleep::fake(syncWithCarbon: true);
        $this->assertTrue(Cache::lock('foo', 10)->get());
        $this->expectException(LockTimeoutException::class);
        Cache::lock('foo', 10)->block(5);
    }

    public function testBlockTimesOutInRealTime(): void
    {
        $this->assertTrue(Cache::lock('foo', 10)->get());
        $t0 = hrtime(true);
        try {
            Cache::lock('foo', 10)->betweenBlockedAttemptsSleepFor(100)->block(1);
            $this->fail('no timeout');
        } catch (LockTimeoutException) {
        }
        $ms = (hrtime(true) - $t0) / 1e6;
        $this->assertGreaterThan(700, $ms);
        $this->assertLessThan(1600, $ms);
    }

    public function testConcurrentLocksAreReleasedSafely(): void
    {
        $first = Cache::lock('foo', 1);
        $this->assertTrue($first->get());
        usleep(1100000); // its TTL runs out on the nodes
        $second = Cache::lock('foo', 10);
        $this->assertTrue($second->get());
        // the first owner's release must not free the second owner's lock
        $this->assertFalse($first->release());
        $this->assertFalse(Cache::lock('foo')->get());
        $second->release();
    }

    public function testLocksCanBeReleasedUsingOwnerToken(): void
    {
        $first = Cache::lock('foo', 10);
        $this->assertTrue($first->get());
        $owner = $first->owner();
        $second = Cache::store('redlock')->restoreLock('foo', $owner);
        $this->assertTrue($second->release());
        $this->assertTrue(Cache::lock('foo')->get());
    }

    public function testOwnerStatusCanBeCheckedAfterRestoringLock(): void
    {
        $first = Cache::lock('foo', 10);
        $this->assertTrue($first->get());
        $second = Cache::store('redlock')->restoreLock('foo', $first->owner());
        $this->assertTrue($second->isOwnedByCurrentProcess());
        $this->assertSame($first->owner(), $second->owner());
    }

    public function testOtherOwnerDoesNotOwnLockAfterRestore(): void
    {
        $first = Cache::lock('foo', 10);
        $this->assertTrue($first->isOwnedBy(null));
        $this->assertTrue($first->get());
        $this->assertFalse($first->isOwnedBy(null));
        $this->assertTrue($first->isOwnedBy($first->owner()));
        $this->assertTrue($first->isOwnedByCurrentProcess());

        $second = Cache::store('redlock')->restoreLock('foo', 'other_owner');
        $this->assertTrue($second->isOwnedBy($first->owner()));
        $this->assertFalse($second->isOwnedByCurrentProcess());
        $this->assertFalse($second->release());
        $this->assertTrue($first->isOwnedByCurrentProcess());
    }

    /** Short owners map to a token the extension accepts; the owner itself is kept. */
    public function testShortAndLongOwners(): void
    {
        foreach (['x', 'other_owner', str_repeat('o', 1000), "bin\0ary"] as $owner) {
            $lock = Cache::lock('foo', 10, $owner);
            $this->assertSame($owner, $lock->owner());
            $this->assertTrue($lock->get());
            $this->assertSame(5, \TestNodes::holders($this->key('foo'), RedLockLock::tokenFor($owner)));
            $this->assertTrue(Cache::restoreLock('foo', $owner)->isOwnedByCurrentProcess());
            $this->assertTrue($lock->release());
        }
        // the default owner, as Laravel makes it
        $this->assertSame(16, \strlen(Cache::lock('foo', 10)->owner()));
        $this->assertNotSame(Cache::lock('foo')->owner(), Cache::lock('foo')->owner());
    }

    /** restoreLock() across processes: a job releases what a request took. */
    public function testRestoreLockAcrossProcesses(): void
    {
        $boot = 'require ' . var_export(__DIR__ . '/MinimalApp.php', true) . '; RedLock\Laravel\Tests\MinimalApp::boot();';
        [$rc, $owner] = \IntegrationSupport::php($boot . ' $l = Illuminate\Support\Facades\Cache::lock("foo", 30); echo $l->get() ? $l->owner() : "busy";');
        $this->assertSame(0, $rc, $owner);
        $this->assertSame(16, \strlen($owner), $owner);
        // still held after that process ended (auto_release off)
        $this->assertSame(5, \TestNodes::present($this->key('foo')));
        $this->assertFalse(Cache::lock('foo', 10)->get());
        [$rc, $out] = \IntegrationSupport::php($boot . ' $l = Illuminate\Support\Facades\Cache::restoreLock("foo", ' . var_export($owner, true) . ');'
            . ' echo json_encode([$l->isOwnedByCurrentProcess(), $l->refresh(20), $l->release()]);');
        $this->assertSame('[true,true,true]', $out);
        $this->assertSame(0, \TestNodes::present($this->key('foo')));
    }

    public function testForceRelease(): void
    {
        $other = Cache::lock('foo', 10, 'someone_else');
        $this->assertTrue($other->get());
        $this->assertFalse(Cache::lock('foo', 10)->get());
        Cache::lock('foo')->forceRelease();
        $this->assertSame(0, \TestNodes::present($this->key('foo')));
        $mine = Cache::lock('foo', 10);
        $this->assertTrue($mine->get());
        $this->assertFalse($other->isOwnedByCurrentProcess());
        $this->assertFalse($other->release());
        $this->assertTrue($mine->release());
    }

    public function testLockCanBeRefreshed(): void
    {
        $lock = Cache::lock('foo', 10);
        $this->assertTrue($lock->get());
        $this->assertTrue($lock->refresh(20));
        foreach (\TestNodes::probes() as $p) {
            $this->assertGreaterThan(10000, $p->pttl($this->key('foo')));
        }
        $this->assertFalse(Cache::lock('foo', 10)->get());
        // default: the lock's own seconds
        $this->assertTrue($lock->refresh());
        foreach (\TestNodes::probes() as $p) {
            $this->assertLessThanOrEqual(10000, $p->pttl($this->key('foo')));
        }
        $this->assertFalse(Cache::restoreLock('foo', 'other_owner')->refresh(20));
        $this->assertTrue($lock->refresh(20));
        $lock->release();
        $this->assertFalse($lock->refresh(20));
    }

    /** No expiry in Laravel's terms: the store's forever_seconds (default 86400 s). */
    public function testLocksWithoutExpiryGetTheForeverTtl(): void
    {
        $lock = Cache::lock('foo');
        $this->assertTrue($lock->get());
        foreach (\TestNodes::probes() as $p) {
            $pttl = $p->pttl($this->key('foo'));
            $this->assertGreaterThan(86390000, $pttl);
            $this->assertLessThanOrEqual(86400000, $pttl);
        }
        $this->assertTrue($lock->refresh(5));
        $this->assertTrue($lock->refresh(0));
        $this->assertGreaterThan(86390000, \TestNodes::probe(0)->pttl($this->key('foo')));
        $lock->release();

        MinimalApp::boot(['forever_seconds' => 120]);
        $lock = Cache::lock('foo');
        $this->assertTrue($lock->get());
        $this->assertGreaterThan(119000, \TestNodes::probe(0)->pttl($this->key('foo')));
        $this->assertLessThanOrEqual(120000, \TestNodes::probe(0)->pttl($this->key('foo')));
        $lock->release();
    }

    /** A conflicting get() is one round trip, not the extension's default retries. */
    public function testConflictIsAnsweredWithoutRetries(): void
    {
        $this->assertTrue(Cache::lock('foo', 10)->get());
        $t0 = hrtime(true);
        $this->assertFalse(Cache::lock('foo', 10)->get());
        $this->assertLessThan(150, (hrtime(true) - $t0) / 1e6);
        // lock_options can ask for retries
        MinimalApp::boot(['lock_options' => ['retry_count' => 2, 'retry_delay' => 100, 'retry_jitter' => 0]]);
        $t0 = hrtime(true);
        $this->assertFalse(Cache::lock('foo', 10)->get());
        $this->assertGreaterThan(180, (hrtime(true) - $t0) / 1e6);
    }

    public function testOnlyLocks(): void
    {
        foreach ([
            'get' => fn () => Cache::store('redlock')->get('x'),
            'put' => fn () => Cache::store('redlock')->put('x', 1, 10),
            'increment' => fn () => Cache::store('redlock')->increment('x'),
            'forever' => fn () => Cache::store('redlock')->forever('x', 1),
            'forget' => fn () => Cache::store('redlock')->forget('x'),
            'flush' => fn () => Cache::store('redlock')->flush(),
            'many' => fn () => Cache::store('redlock')->getStore()->many(['x']),
        ] as $method => $call) {
            try {
                $call();
                $this->fail("$method() did not throw");
            } catch (\BadMethodCallException $e) {
                $this->assertStringContainsString('only provides locks', $e->getMessage());
                $this->assertStringContainsString($method, $e->getMessage());
            }
        }
        $store = Cache::store('redlock')->getStore();
        $this->assertInstanceOf(RedLockStore::class, $store);
        $this->assertSame(\IntegrationSupport::prefix('laravel'), $store->getPrefix());
    }

    public function testConfiguration(): void
    {
        // prefix: the cache prefix by default, the RedLock option wins
        MinimalApp::boot(['options' => ['prefix' => 'own-prefix:', 'timeout' => 100]]);
        $lock = Cache::lock('foo', 10);
        $this->assertTrue($lock->get());
        $this->assertSame(5, \TestNodes::present('own-prefix:foo'));
        $this->assertSame(0, \TestNodes::present($this->key('foo')));
        $lock->release();
        foreach ([
            ['nodes' => null],
            ['lock_options' => ['auto_release' => true]],
            ['lock_options' => ['token' => str_repeat('t', 20)]],
            ['forever_seconds' => 0],
        ] as $bad) {
            try {
                MinimalApp::boot($bad);
                Cache::store('redlock');
                $this->fail('accepted ' . json_encode($bad));
            } catch (\InvalidArgumentException) {
            }
        }
        // a RedLock option it does not know is the extension's \ValueError, naming it
        try {
            MinimalApp::boot(['options' => ['retries' => 3]]);
            Cache::store('redlock');
            $this->fail('accepted an unknown option');
        } catch (\ValueError $e) {
            $this->assertStringContainsString('retries', $e->getMessage());
        }
    }

    public function testQuorumFailureIsTheExtensionsException(): void
    {
        $closed = [];
        for ($i = 0; $i < 2; $i++) {
            $s = stream_socket_server('tcp://127.0.0.1:0');
            $closed[] = stream_socket_get_name($s, false);
            fclose($s);
        }
        MinimalApp::boot(['nodes' => [\TestNodes::$nodes[0], ...$closed], 'options' => ['connect_timeout' => 100]]);
        $this->expectException(\RedLock\QuorumException::class);
        Cache::lock('foo', 10)->get();
    }

    /**
     * Octane: one PHP request serves many, and Octane's RequestTerminated /
     * TaskTerminated end each of them; the provider's listener releases then
     * what request end would under PHP-FPM (the worker's auto_release locks).
     * The driver's locks outlive it, as they outlive request end.
     */
    public function testOctaneTerminatedEventsReleaseTheWorkersAutoReleaseLocks(): void
    {
        $app = MinimalApp::boot();
        $redlock = new \RedLock(\TestNodes::$nodes, ['prefix' => \IntegrationSupport::prefix('laravel')]);
        $driverLock = Cache::lock('foo', 60);
        $this->assertTrue($driverLock->get());
        $events = ['Laravel\\Octane\\Events\\RequestTerminated', 'Laravel\\Octane\\Events\\TaskTerminated'];
        foreach ([...$events, ...$events] as $i => $event) {
            $lock = $redlock->lock('octane:app', 60000);
            $this->assertNotNull($lock, "round $i: the lock survived the previous $event");
            // Octane's events carry the application, request and response: not needed here
            $app['events']->dispatch((new \ReflectionClass($event))->newInstanceWithoutConstructor());
            $this->assertTrue($lock->isReleased(), "$event did not release");
            $this->assertTrue(\TestNodes::waitFor(fn() => \TestNodes::present($this->key('octane:app')) === 0, 2.0));
            $this->assertFalse(Cache::lock('foo', 10)->get(), "$event released the driver's lock");
        }
        $this->assertTrue($driverLock->release());
    }
}
