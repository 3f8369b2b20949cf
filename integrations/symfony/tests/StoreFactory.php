<?php
declare(strict_types=1);

namespace RedLock\Symfony\Tests;

use RedLock\Symfony\RedLockStore;

final class StoreFactory
{
    /** A RedLockStore over the test nodes, under this process' own key prefix. */
    public static function create(array $lockOptions = [], array $redlockOptions = []): RedLockStore
    {
        $redlock = new \RedLock(\TestNodes::$nodes, $redlockOptions + ['prefix' => \IntegrationSupport::prefix('symfony')]);
        return new RedLockStore($redlock, $lockOptions);
    }
}
