<?php

declare(strict_types=1);

namespace RedLock\Laravel;

use Illuminate\Contracts\Cache\LockProvider;
use Illuminate\Contracts\Cache\Store;

/**
 * The "redlock" cache store: locks only. Cache::store('redlock')->lock(),
 * restoreLock() and everything on the lock work; get(), put() and the other
 * value methods throw \BadMethodCallException (keep values in another store).
 */
class RedLockStore implements Store, LockProvider
{
    /** TTL of a lock without expiry (lock('x'), refresh(0)): RedLock locks always expire. */
    public const FOREVER_SECONDS = 86400;

    /**
     * @param array<string, mixed> $lockOptions per lock() call, over ['retry_count' => 0]
     */
    public function __construct(
        protected \RedLock $redlock,
        protected array $lockOptions = [],
        protected int|float $foreverSeconds = self::FOREVER_SECONDS,
        protected string $prefix = '',
    ) {
        if (\array_key_exists('token', $lockOptions) || \array_key_exists('auto_release', $lockOptions)) {
            throw new \InvalidArgumentException('"token" and "auto_release" cannot be set in the redlock store\'s lock_options: the token is the lock owner\'s, and Laravel locks outlive the request that took them.');
        }
        if ($foreverSeconds <= 0 || $foreverSeconds * 1000 > 2147483647) {
            throw new \InvalidArgumentException('"forever_seconds" must be greater than 0 and at most 2147483.647.');
        }
    }

    /**
     * @param array<string, mixed> $config the store's entry in config/cache.php
     */
    public static function fromConfig(array $config, string $cachePrefix = ''): self
    {
        if (!isset($config['nodes']) || !\is_array($config['nodes'])) {
            throw new \InvalidArgumentException('The redlock cache store needs "nodes": a list of Redis masters (URIs or arrays).');
        }
        $options = $config['options'] ?? [];
        $options['prefix'] ??= $config['prefix'] ?? $cachePrefix;

        return new self(
            new \RedLock($config['nodes'], $options),
            $config['lock_options'] ?? [],
            $config['forever_seconds'] ?? self::FOREVER_SECONDS,
            (string) $options['prefix'],
        );
    }

    public function lock($name, $seconds = 0, $owner = null)
    {
        return new RedLockLock($this->redlock, (string) $name, $seconds, $owner, $this->lockOptions, $this->foreverSeconds);
    }

    public function restoreLock($name, $owner)
    {
        return $this->lock($name, 0, $owner);
    }

    public function getRedLock(): \RedLock
    {
        return $this->redlock;
    }

    public function getPrefix()
    {
        return $this->prefix;
    }

    private function locksOnly(string $method): never
    {
        throw new \BadMethodCallException("The redlock cache store only provides locks (lock(), restoreLock()); $method() is not supported: keep cached values in another store.");
    }

    public function get($key)
    {
        $this->locksOnly(__FUNCTION__);
    }

    public function many(array $keys)
    {
        $this->locksOnly(__FUNCTION__);
    }

    public function put($key, $value, $seconds)
    {
        $this->locksOnly(__FUNCTION__);
    }

    public function putMany(array $values, $seconds)
    {
        $this->locksOnly(__FUNCTION__);
    }

    public function increment($key, $value = 1)
    {
        $this->locksOnly(__FUNCTION__);
    }

    public function decrement($key, $value = 1)
    {
        $this->locksOnly(__FUNCTION__);
    }

    public function forever($key, $value)
    {
        $this->locksOnly(__FUNCTION__);
    }

    public function forget($key)
    {
        $this->locksOnly(__FUNCTION__);
    }

    public function flush()
    {
        $this->locksOnly(__FUNCTION__);
    }
}
