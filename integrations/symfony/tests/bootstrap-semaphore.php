<?php
declare(strict_types=1);

require __DIR__ . '/../../../tests/harness/integrations/support.php';
IntegrationSupport::init();
fwrite(STDERR, 'symfony/semaphore ' . \Composer\InstalledVersions::getPrettyVersion('symfony/semaphore') . "\n");
