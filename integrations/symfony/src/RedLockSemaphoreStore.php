<?php

declare(strict_types=1);

namespace RedLock\Symfony;

use RedLock\QuorumException;
use Symfony\Component\Semaphore\Exception\InvalidArgumentException;
use Symfony\Component\Semaphore\Exception\SemaphoreAcquiringException;
use Symfony\Component\Semaphore\Exception\SemaphoreExpiredException;
use Symfony\Component\Semaphore\Exception\SemaphoreReleasingException;
use Symfony\Component\Semaphore\Key;
use Symfony\Component\Semaphore\PersistingStoreInterface;
use Symfony\Contracts\Service\ResetInterface;

/**
 * A symfony/semaphore store on the redlock extension: each Key's permits are
 * \RedLock::semaphore() permits over the nodes of the given \RedLock (a
 * quorum of independent Redis masters; at most the Key's limit holders, by
 * weight, with up to N - quorum nodes down).
 *
 *     $store = new RedLockSemaphoreStore(new \RedLock(['redis://a', 'redis://b', 'redis://c']));
 *     $semaphore = (new SemaphoreFactory($store))->createSemaphore('pdf-render', 3);
 *     if ($semaphore->acquire()) { try { render(); } finally { $semaphore->release(); } }
 *
 * - The Key keeps its permit (a RedLock\Lock) in its state: a Key is used by
 *   the process that acquired it (a permit cannot be restored elsewhere yet).
 * - save() makes one attempt (Symfony's acquire() wants an answer now);
 *   exists() asks the nodes (Lock::isHeld()); putOffExpiration() is a
 *   token-checked extend(); delete() releases. Permits are taken with
 *   'auto_release' off, as Symfony's own stores keep theirs until delete()
 *   or the TTL.
 * - $options are semaphore()'s per-call options (retry_count, retry_delay,
 *   wait, fencing, ...); 'weight' comes from the Key, 'token' cannot be given.
 * - reset() (kernel.reset, worker runtimes) is \RedLock::releaseAll().
 */
final class RedLockSemaphoreStore implements PersistingStoreInterface, ResetInterface
{
    private const STATE = self::class;
    private const DEFAULTS = ['retry_count' => 0, 'auto_release' => false];

    /** @var array<string, mixed> */
    private array $options;

    /** @param array<string, mixed> $options semaphore()'s per-call options */
    public function __construct(
        private \RedLock $redlock,
        array $options = [],
    ) {
        foreach (['weight', 'token'] as $k) {
            if (\array_key_exists($k, $options)) {
                throw new InvalidArgumentException(\sprintf('"%s()": the store sets "%s" itself.', __METHOD__, $k));
            }
        }
        $this->options = $options + self::DEFAULTS;
    }

    public function save(Key $key, float $ttlInSecond): void
    {
        $ttl = self::ms($ttlInSecond);
        $held = $this->permit($key);
        if ($held !== null && !$held->isReleased() && $held->isValid()) {
            // saved twice: the permit is ours already, its TTL renewed
            if (!$held->extend($ttl)) {
                $key->removeState(self::STATE);
                throw new SemaphoreAcquiringException($key, 'the permit was lost');
            }
            return;
        }
        try {
            $permit = $this->redlock->semaphore((string) $key, $key->getLimit(), $ttl,
                ['weight' => $key->getWeight()] + $this->options);
        } catch (QuorumException $e) {
            throw new SemaphoreAcquiringException($key, $e->getMessage());
        } catch (\RedLock\Exception $e) {
            throw new SemaphoreAcquiringException($key, $e->getMessage());
        }
        if ($permit === null) {
            throw new SemaphoreAcquiringException($key, 'the semaphore is full');
        }
        $key->setState(self::STATE, $permit);
        $key->reduceLifetime($permit->remaining() / 1000);
    }

    public function delete(Key $key): void
    {
        $permit = $this->permit($key);
        if ($permit === null) {
            return;
        }
        $key->removeState(self::STATE);
        try {
            $permit->release();
        } catch (\RedLock\Exception $e) {
            throw new SemaphoreReleasingException($key, $e->getMessage());
        }
    }

    public function exists(Key $key): bool
    {
        $permit = $this->permit($key);
        return $permit !== null && !$permit->isReleased() && $permit->isHeld();
    }

    public function putOffExpiration(Key $key, float $ttlInSecond): void
    {
        $ttl = self::ms($ttlInSecond);
        $permit = $this->permit($key);
        if ($permit === null || $permit->isReleased()) {
            // (upstream RedisStore's wording for a Key that holds no permit, which its test expects)
            throw new SemaphoreExpiredException($key, 'the script returns a positive number');
        }
        try {
            $ok = $permit->extend($ttl);
        } catch (\RedLock\Exception $e) {
            throw new SemaphoreExpiredException($key, $e->getMessage());
        }
        if (!$ok) {
            $key->removeState(self::STATE);
            throw new SemaphoreExpiredException($key, 'the permit is gone');
        }
        $key->resetLifetime();
        $key->reduceLifetime($permit->remaining() / 1000);
    }

    public function reset(): void
    {
        \RedLock::releaseAll();
    }

    private function permit(Key $key): ?\RedLock\Lock
    {
        if (!$key->hasState(self::STATE)) {
            return null;
        }
        $p = $key->getState(self::STATE);
        return $p instanceof \RedLock\Lock ? $p : null;
    }

    private static function ms(float $ttlInSecond): int
    {
        if (0 > $ttlInSecond) {
            throw new InvalidArgumentException("The TTL should be greater than 0, '$ttlInSecond' given.");
        }
        return max(1, min(2147483647, (int) ceil($ttlInSecond * 1000)));
    }
}
