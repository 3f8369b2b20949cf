<?php

declare(strict_types=1);

namespace RedLock\Laravel;

use Illuminate\Contracts\Redis\LimiterTimeoutException;

/**
 * At most N at once, with the semantics of Laravel's
 * Redis::funnel($name)->limit(N)->releaseAfter($s)->block($s)->then($callback, $failure),
 * over the redlock nodes: each slot is a \RedLock::semaphore() permit (a quorum
 * on one of N slots), so the limit holds with up to N - quorum nodes down,
 * where Redis::funnel lives on one Redis.
 *
 *     use RedLock\Laravel\Funnel;
 *     Funnel::for(Cache::store('redlock'), 'pdf-render')->limit(3)->releaseAfter(60)->block(10)
 *         ->then(fn () => render($doc), fn ($e) => abort(503));
 *
 * As Laravel's ConcurrencyLimiterBuilder: limit() 1 by default, releaseAfter()
 * 60 s (the permit's TTL: a crashed holder frees its slot then), block() 3 s
 * (0: one attempt). then() runs $callback while holding a permit and releases
 * it afterwards (also when $callback throws) and returns $callback's result; when
 * no permit came within block(), it returns $failure($e) or, without $failure,
 * throws Illuminate\Contracts\Redis\LimiterTimeoutException. The wait is woken
 * when a permit is released (the extension's wake-up), not polled.
 */
final class Funnel
{
    private int $limit = 1;
    private int $releaseAfter = 60;
    private int $block = 3;

    public function __construct(private \RedLock $redlock, private string $name)
    {
    }

    /** @param \Illuminate\Contracts\Cache\Repository|RedLockStore|\RedLock $store the redlock cache store */
    public static function for(object $store, string $name): self
    {
        if ($store instanceof \Illuminate\Contracts\Cache\Repository) {
            $store = $store->getStore();
        }
        $rl = match (true) {
            $store instanceof RedLockStore => $store->getRedLock(),
            $store instanceof \RedLock => $store,
            default => throw new \InvalidArgumentException('Funnel::for() needs the redlock cache store or a \RedLock, ' . get_debug_type($store) . ' given'),
        };
        return new self($rl, $name);
    }

    public function limit(int $maxLocks): self
    {
        $this->limit = $maxLocks;
        return $this;
    }

    public function releaseAfter(int $seconds): self
    {
        $this->releaseAfter = $seconds;
        return $this;
    }

    public function block(int $seconds): self
    {
        $this->block = $seconds;
        return $this;
    }

    /**
     * @throws LimiterTimeoutException when no permit came within block() and no $failure is given
     */
    public function then(callable $callback, ?callable $failure = null): mixed
    {
        if ($this->releaseAfter < 1 || $this->block < 0) {
            throw new \InvalidArgumentException('Funnel: releaseAfter() must be at least 1 s and block() at least 0 s');
        }
        // block(0): one attempt; else wait (woken by releases) until the deadline
        $wait = $this->block > 0 ? ['wait' => $this->block * 1000] : ['retry_count' => 0];
        $permit = $this->redlock->semaphore($this->name, $this->limit, $this->releaseAfter * 1000,
            $wait + ['auto_release' => true]);
        if ($permit === null) {
            $e = new LimiterTimeoutException();
            if ($failure) {
                return $failure($e);
            }
            throw $e;
        }
        try {
            return $callback();
        } finally {
            $permit->release();
        }
    }
}
