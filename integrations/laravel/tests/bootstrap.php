<?php
declare(strict_types=1);

require __DIR__ . '/../../../tests/harness/integrations/support.php';
IntegrationSupport::init();
require __DIR__ . '/MinimalApp.php';
require __DIR__ . '/OctaneEvents.php';
fwrite(STDERR, 'laravel/framework ' . Composer\InstalledVersions::getPrettyVersion('laravel/framework') . "\n");
