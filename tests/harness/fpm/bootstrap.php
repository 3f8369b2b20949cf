<?php
declare(strict_types=1);

require_once __DIR__ . '/FastCgiClient.php';
require_once __DIR__ . '/RedisProbe.php';
require_once __DIR__ . '/FpmHarness.php';
require_once __DIR__ . '/TestNodes.php';
require_once __DIR__ . '/RedLockTestCase.php';

foreach (['posix_kill', 'proc_open'] as $fn) {
    if (!function_exists($fn)) {
        fwrite(STDERR, "tests/harness/fpm needs $fn() in the CLI running PHPUnit\n");
        exit(1);
    }
}

TestNodes::init();
