<?php
declare(strict_types=1);

namespace RedLock\Laravel\Tests;

use Illuminate\Cache\CacheServiceProvider;
use Illuminate\Config\Repository;
use Illuminate\Foundation\Application;
use Illuminate\Support\Facades\Facade;
use RedLock\Laravel\RedLockServiceProvider;

/** A minimal Laravel application: config, the CacheManager, our provider (no testbench). */
final class MinimalApp
{
    /** @param array<string, mixed> $store extra keys of the "redlock" store's config */
    public static function boot(array $store = []): Application
    {
        $app = new Application(sys_get_temp_dir());
        $app->instance('config', new Repository([
            'cache' => [
                'default' => 'redlock',
                'prefix' => \IntegrationSupport::prefix('laravel'),
                'stores' => [
                    'redlock' => $store + ['driver' => 'redlock', 'nodes' => \TestNodes::$nodes],
                    'array' => ['driver' => 'array'],
                ],
            ],
        ]));
        $app->register(CacheServiceProvider::class);
        $app->register(RedLockServiceProvider::class);
        $app->boot();
        Facade::clearResolvedInstances();
        Facade::setFacadeApplication($app);

        return $app;
    }
}
