<?php

declare(strict_types=1);

namespace RedLock\Laravel;

use Illuminate\Cache\Lock;
use RedLock\LockLostException;

/**
 * A Laravel lock on the redlock extension. The owner is the lock's token:
 * each owner maps to one token, always the same (sha256 of the owner, 64
 * hex characters: short owners like 'other_owner' fit the extension's 16-128
 * bytes), so restoreLock($name, $owner) in another process or a queued job
 * finds the lock. The owner is what has to stay secret: Laravel's default
 * (Str::random()) is.
 *
 * - get()/acquire(): one lock() attempt ('retry_count' => 0 unless the
 *   store's lock_options say otherwise): a conflict returns false after one
 *   round trip. block() keeps Laravel's loop (an attempt every 250 ms, see
 *   betweenBlockedAttemptsSleepFor()).
 * - Acquired with 'auto_release' off: the lock outlives the request or job
 *   that took it, until release() or its TTL.
 * - A lock without expiry (lock('x'), refresh(0)) gets the store's
 *   'forever_seconds' (default 86400) as TTL: RedLock locks always expire.
 * - release() and refresh() are token-checked; forceRelease() deletes the
 *   key on every node whoever holds it.
 */
class RedLockLock extends Lock
{
    /**
     * @param array<string, mixed> $lockOptions
     */
    public function __construct(
        protected \RedLock $redlock,
        $name,
        $seconds,
        $owner = null,
        protected array $lockOptions = [],
        protected int|float $foreverSeconds = RedLockStore::FOREVER_SECONDS,
    ) {
        parent::__construct($name, $seconds, $owner);
    }

    /** The token of an owner: deterministic, 64 lowercase hex characters. */
    public static function tokenFor(string $owner): string
    {
        return hash('sha256', 'redlock-laravel:' . $owner);
    }

    public function acquire()
    {
        $options = ['token' => self::tokenFor((string) $this->owner), 'auto_release' => false] + $this->lockOptions;
        if (!isset($options['wait'])) {
            $options += ['retry_count' => 0];
        }

        return $this->redlock->lock($this->name, $this->milliseconds($this->seconds), $options) !== null;
    }

    public function release()
    {
        try {
            return $this->restored((string) $this->owner)->release();
        } catch (LockLostException) {
            return false;
        }
    }

    public function forceRelease()
    {
        $this->redlock->forceRelease($this->name);
    }

    /**
     * Token-checked extend to $seconds (default: the lock's; 0: forever_seconds).
     */
    public function refresh($seconds = null)
    {
        $seconds ??= $this->seconds;
        try {
            return $this->restored((string) $this->owner)->extend($this->milliseconds($seconds));
        } catch (LockLostException) {
            return false;
        }
    }

    /**
     * Does $owner hold the lock now (a quorum of nodes hold its token)? null:
     * does nobody hold it?
     */
    public function isOwnedBy($owner)
    {
        if ($owner === null) {
            return !$this->redlock->isLocked($this->name);
        }

        return $this->restored((string) $owner)->isHeld();
    }

    /**
     * This lock's owner while it holds the lock, else null. The nodes keep
     * tokens, not owners: another owner cannot be read back (isOwnedBy()
     * compares instead).
     */
    protected function getCurrentOwner()
    {
        return $this->restored((string) $this->owner)->isHeld() ? $this->owner : null;
    }

    private function restored(string $owner): \RedLock\Lock
    {
        return $this->redlock->restore($this->name, self::tokenFor($owner));
    }

    private function milliseconds(int|float|null $seconds): int
    {
        $seconds = $seconds > 0 ? $seconds : $this->foreverSeconds;
        $ms = (int) ceil($seconds * 1000);
        if ($ms > 2147483647) {
            throw new \InvalidArgumentException("A redlock lock lasts at most 2147483.647 seconds, $seconds given.");
        }

        return $ms;
    }
}
