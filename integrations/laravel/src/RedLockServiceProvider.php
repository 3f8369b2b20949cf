<?php

declare(strict_types=1);

namespace RedLock\Laravel;

use Illuminate\Cache\CacheManager;
use Illuminate\Support\ServiceProvider;

/**
 * Registers the cache driver "redlock" (package discovery does it for you):
 *
 *     // config/cache.php, 'stores'
 *     'redlock' => [
 *         'driver' => 'redlock',
 *         'nodes' => ['redis://10.0.0.1:6379', 'redis://10.0.0.2:6379', 'redis://10.0.0.3:6379'],
 *         'options' => ['timeout' => 50],        // new \RedLock($nodes, $options)
 *     ],
 *
 *     Cache::store('redlock')->lock('invoice:42', 10)->get(fn () => ...);
 *
 * Optional keys: 'lock_options' (per lock() call, over the default
 * ['retry_count' => 0]), 'forever_seconds' (the TTL of a lock without
 * expiry, default 86400), 'prefix' (default: the cache prefix; 'options'
 * => ['prefix' => ...] wins).
 *
 * Laravel Octane (one PHP request serves many): at the end of each request and
 * task (Octane's RequestTerminated, TaskTerminated) \RedLock::releaseAll() does
 * what request end does under PHP-FPM: it releases the locks this worker took
 * with 'auto_release'. The driver's own locks are taken without it and outlive
 * the request in both.
 */
class RedLockServiceProvider extends ServiceProvider
{
    /** Octane's events, by name: Octane need not be installed. */
    public const OCTANE_EVENTS = [
        'Laravel\\Octane\\Events\\RequestTerminated',
        'Laravel\\Octane\\Events\\TaskTerminated',
    ];

    public function register(): void
    {
        // before any provider boots, so the driver is there whenever the cache is used
        $this->app->booting(function ($app): void {
            $app->make('events')->listen(self::OCTANE_EVENTS, static function (): void {
                \RedLock::releaseAll();
            });
            $app->make('cache')->extend('redlock', function ($app, array $config) {
                /** @var CacheManager $this */
                return $this->repository(RedLockStore::fromConfig($config, $this->getPrefix($config) ?? ''), $config);
            });
        });
    }
}
