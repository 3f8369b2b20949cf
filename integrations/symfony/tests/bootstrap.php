<?php
declare(strict_types=1);

require __DIR__ . '/../../../tests/harness/integrations/support.php';
IntegrationSupport::init();
require __DIR__ . '/UpstreamSymfonyTests.php';
require __DIR__ . '/StoreFactory.php';
use RedLock\Symfony\Tests\UpstreamSymfonyTests;

fwrite(STDERR, UpstreamSymfonyTests::load()
    ? 'symfony/lock ' . UpstreamSymfonyTests::$version . ': upstream store tests: ' . UpstreamSymfonyTests::$base . " + ExpiringStoreTestTrait + BlockingStoreTestTrait\n"
    : 'symfony/lock ' . UpstreamSymfonyTests::$version . ': upstream store tests skipped: ' . UpstreamSymfonyTests::$skipReason . "\n");
