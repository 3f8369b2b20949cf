<?php

declare(strict_types=1);

namespace RedLock\Symfony;

use RedLock\LockLostException;
use RedLock\QuorumException;
use Symfony\Component\Lock\BlockingSharedLockStoreInterface;
use Symfony\Component\Lock\BlockingStoreInterface;
use Symfony\Component\Lock\Exception\InvalidArgumentException;
use Symfony\Component\Lock\Exception\InvalidTtlException;
use Symfony\Component\Lock\Exception\LockAcquiringException;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockExpiredException;
use Symfony\Component\Lock\Exception\LockReleasingException;
use Symfony\Component\Lock\Exception\LockStorageException;
use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\PersistingStoreInterface;
use Symfony\Component\Lock\SharedLockStoreInterface;
use Symfony\Contracts\Service\ResetInterface;

/**
 * A Symfony Lock store on the redlock extension: each lock is a RedLock over
 * the nodes of the given \RedLock (a quorum of independent Redis masters).
 *
 *     $store = new RedLockStore(new \RedLock(['redis://a', 'redis://b', 'redis://c']));
 *     $lock = (new LockFactory($store))->createLock('invoice:42', 30);
 *
 * - The Key keeps the lock's token and fence in its state (plain values), so
 *   it stays serializable: a Key saved in one process can be checked,
 *   refreshed and released in another (the extension's restore()).
 * - Locks are acquired with 'auto_release' off: a framework lock outlives the
 *   request or process that took it, until delete() or its TTL.
 * - exists() asks the nodes whether a quorum holds this Key's token
 *   (Lock::isHeld()); putOffExpiration() is a token-checked extend();
 *   waitAndSave() is lock() with 'wait'; the Key's lifetime is reduced to the
 *   lock's validity (TTL minus elapsed time and clock drift).
 *
 * $lockOptions are the extension's per-call options of lock() (retry_count,
 * retry_delay, retry_jitter, wait, drift_factor, fencing, throw_on_lost), plus
 * 'ttl': the TTL in ms of a save() before the first putOffExpiration()
 * (default 300000, as Symfony's RedisStore). Defaults chosen for Symfony:
 * save() makes one attempt ('retry_count' => 0: Symfony's non-blocking
 * acquire() wants an answer now, and a conflict costs one round trip instead
 * of the extension's 3 retries of 200-300 ms); waitAndSave() retries every
 * 100-120 ms ('retry_delay' => 100, 'retry_jitter' => 20, Symfony's own
 * cadence) until it gets the lock. 'token' and 'auto_release' => true cannot
 * be given: the store manages tokens, and its locks are never released at
 * request end.
 *
 * Read locks (SharedLockStoreInterface, BlockingSharedLockStoreInterface):
 * saveRead() is lock() with 'shared' => true. Promotion and demotion are the
 * extension's: save() of a Key that holds a read lock turns it exclusive
 * when it is the only reader (else LockConflictedException, and the read
 * lock stays); saveRead() of a Key that holds the exclusive lock turns it
 * shared. The Key's state keeps the mode.
 *
 * Worker runtimes (FrankenPHP worker mode, RoadRunner, Swoole: one PHP request
 * serves many): the store is a ResetInterface service, so autoconfiguration tags
 * it kernel.reset and reset() runs between two requests; it calls
 * \RedLock::releaseAll(), what request end does under PHP-FPM.
 */
final class RedLockStore implements PersistingStoreInterface, BlockingStoreInterface, SharedLockStoreInterface, BlockingSharedLockStoreInterface, ResetInterface
{
    /** The Key state entry: ['token' => string, 'fence' => ?int, 'mode' => 'exclusive'|'shared']. */
    private const STATE = self::class;

    private const DEFAULT_TTL_MS = 300000;
    private const SAVE_DEFAULTS = ['retry_count' => 0];
    private const WAIT_DEFAULTS = ['retry_delay' => 100, 'retry_jitter' => 20];
    /** waitAndSave() waits in slices of this many ms (until it gets the lock) */
    private const WAIT_SLICE_MS = 60000;

    private int $ttl;
    /** @var array<string, mixed> */
    private array $options;

    /**
     * @param array<string, mixed> $lockOptions see the class comment
     */
    public function __construct(
        private \RedLock $redlock,
        array $lockOptions = [],
    ) {
        $ttl = $lockOptions['ttl'] ?? self::DEFAULT_TTL_MS;
        unset($lockOptions['ttl']);
        if (!\is_int($ttl) || $ttl < 1 || $ttl > 2147483647) {
            throw new InvalidTtlException(\sprintf('"%s()" expects "ttl" in milliseconds, 1 to 2147483647. Got %s.', __METHOD__, get_debug_type($ttl)));
        }
        if (\array_key_exists('token', $lockOptions)) {
            throw new InvalidArgumentException('The "token" option cannot be given to RedLockStore: each Key gets its own token.');
        }
        if (($lockOptions['auto_release'] ?? false) !== false) {
            throw new InvalidArgumentException('RedLockStore acquires with "auto_release" off: a Symfony lock outlives the request that took it (delete() or its TTL end it).');
        }
        $lockOptions['auto_release'] = false;
        $this->ttl = $ttl;
        $this->options = $lockOptions;
    }

    /** The fencing token of a Key saved with 'fencing' => true, else null. */
    public static function getFence(Key $key): ?int
    {
        return $key->hasState(self::STATE) ? $key->getState(self::STATE)['fence'] : null;
    }

    /**
     * kernel.reset: the end of one request of a worker. Releases every lock
     * this worker (thread, in ZTS) took with 'auto_release' (the application's
     * own \RedLock::lock() calls) and stops their watchdogs, as request end does
     * under PHP-FPM. This store's own locks are taken without 'auto_release':
     * they outlive the request here as they do there (until delete() or their TTL).
     */
    public function reset(): void
    {
        \RedLock::releaseAll();
    }

    public function save(Key $key): void
    {
        $options = $this->options;
        if (!isset($options['wait'])) {
            $options += self::SAVE_DEFAULTS;
        }
        $this->acquire($key, $options);
    }

    public function waitAndSave(Key $key): void
    {
        $this->waitAndAcquire($key, false);
    }

    public function saveRead(Key $key): void
    {
        $options = $this->options;
        if (!isset($options['wait'])) {
            $options += self::SAVE_DEFAULTS;
        }
        $this->acquire($key, $options, false, true);
    }

    public function waitAndSaveRead(Key $key): void
    {
        $this->waitAndAcquire($key, true);
    }

    private function waitAndAcquire(Key $key, bool $shared): void
    {
        $options = $this->options;
        unset($options['retry_count']);
        $options += self::WAIT_DEFAULTS;
        $options['wait'] = self::WAIT_SLICE_MS;
        while (!$this->acquire($key, $options, true, $shared)) {
            // the slice ran out: wait again, as long as it takes
        }
    }

    public function delete(Key $key): void
    {
        if (!$key->hasState(self::STATE)) {
            return;
        }
        try {
            $this->restore($key)->release();
        } catch (LockLostException) {
            // not ours any more (throw_on_lost): nothing to delete
        } catch (QuorumException $e) {
            throw new LockReleasingException(\sprintf('Failed to release the "%s" lock: %s', $key, $e->getMessage()), 0, $e);
        }
        $key->removeState(self::STATE);
    }

    public function exists(Key $key): bool
    {
        if (!$key->hasState(self::STATE)) {
            return false;
        }
        try {
            return $this->restore($key)->isHeld();
        } catch (QuorumException $e) {
            throw new LockStorageException(\sprintf('Cannot tell whether the "%s" lock is held: %s', $key, $e->getMessage()), 0, $e);
        }
    }

    public function putOffExpiration(Key $key, float $ttl): void
    {
        if (!$key->hasState(self::STATE)) {
            throw new LockConflictedException(\sprintf('The "%s" lock is not held by this key.', $key));
        }
        $ms = (int) ceil($ttl * 1000);
        if ($ttl <= 0 || $ms > 2147483647) {
            throw new InvalidTtlException(\sprintf('"%s()" expects a TTL greater than 0 and at most 2147483.647 seconds. Got %s.', __METHOD__, $ttl));
        }
        $lock = $this->restore($key);
        $t0 = hrtime(true);
        try {
            $extended = $lock->extend($ms);
        } catch (LockLostException) {
            $extended = false;
        }
        if ($extended) {
            $key->reduceLifetime($lock->remaining() / 1000);
            $this->checkNotExpired($key);

            return;
        }
        // Failed: either the new TTL was used up before the nodes confirmed it
        // (validity = ttl - elapsed - drift <= 0: the lock expired), or the
        // token is gone (expired earlier, or taken).
        $elapsed = (int) ceil((hrtime(true) - $t0) / 1e6);
        $drift = (float) ($this->options['drift_factor'] ?? (\ini_get('redlock.drift_factor') ?: 0.01));
        if ($ms - $elapsed - ((int) ($ms * $drift) + 2) <= 0) {
            $key->reduceLifetime(0);
            throw new LockExpiredException(\sprintf('Failed to put off the expiration of the "%s" lock within the specified time.', $key));
        }
        throw new LockConflictedException(\sprintf('The "%s" lock is not held by this key any more (expired or taken).', $key));
    }

    /**
     * One lock() (with the options' retries or wait). False only when
     * $blocking and the wait ran out; a conflict otherwise throws.
     *
     * @param array<string, mixed> $options
     */
    private function acquire(Key $key, array $options, bool $blocking = false, bool $shared = false): bool
    {
        $mode = $shared ? 'shared' : 'exclusive';
        // saved already in this mode (save() twice, or a refresh): extend what this Key holds;
        // in the other mode, lock() with its token promotes or demotes it
        if ($key->hasState(self::STATE) && ($key->getState(self::STATE)['mode'] ?? 'exclusive') === $mode) {
            $held = $this->restore($key);
            try {
                $extended = $held->extend($this->ttl);
            } catch (LockLostException|QuorumException) {
                $extended = false;
            }
            if ($extended) {
                $key->reduceLifetime($held->remaining() / 1000);
                $this->checkNotExpired($key);

                return true;
            }
        }
        $token = $key->hasState(self::STATE) ? $key->getState(self::STATE)['token'] : bin2hex(random_bytes(20));
        try {
            $lock = $this->redlock->lock((string) $key, $this->ttl, ['token' => $token, 'shared' => $shared] + $options);
        } catch (QuorumException $e) {
            throw new LockAcquiringException(\sprintf('Failed to acquire the "%s" lock: %s', $key, $e->getMessage()), 0, $e);
        }
        if (null === $lock) {
            if ($blocking) {
                return false;
            }
            throw new LockConflictedException(\sprintf('The "%s" lock is held by someone else.', $key));
        }
        $key->setState(self::STATE, ['token' => $lock->token, 'fence' => $lock->fence, 'mode' => $mode]);
        $key->reduceLifetime($lock->remaining() / 1000);
        $this->checkNotExpired($key);

        return true;
    }

    private function restore(Key $key): \RedLock\Lock
    {
        $state = $key->getState(self::STATE);

        return $this->redlock->restore((string) $key, $state['token'], ['mode' => $state['mode'] ?? 'exclusive']);
    }

    /** As Symfony's stores do: an expired Key's lock is released, and that is an error. */
    private function checkNotExpired(Key $key): void
    {
        if ($key->isExpired()) {
            try {
                $this->delete($key);
            } catch (\Exception) {
                // keep the expiry as the error
            }
            throw new LockExpiredException(\sprintf('Failed to store the "%s" lock.', $key));
        }
    }
}
