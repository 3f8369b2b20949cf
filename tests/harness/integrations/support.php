<?php
declare(strict_types=1);

/**
 * What the adapters' PHPUnit suites (integrations/<framework>/tests) share:
 * the nodes (tests/harness/fpm/TestNodes.php: REDLOCK_TEST_NODES, else its own from
 * tests/nodes.sh), the RESP probe, the Composer autoloader of the project
 * tests/harness/integrations/run.sh installed (REDLOCK_COMPOSER_AUTOLOAD), and child
 * PHP processes with the same extension and autoloader.
 */

require_once __DIR__ . '/../fpm/FpmHarness.php'; // TestNodes::shutdown() removes its node dir with it
require_once __DIR__ . '/../fpm/RedisProbe.php';
require_once __DIR__ . '/../fpm/TestNodes.php';

final class IntegrationSupport
{
    public static function init(): void
    {
        if (!extension_loaded('redlock')) {
            fwrite(STDERR, "the redlock extension is not loaded (run: php -d extension=modules/redlock.so phpunit ...)\n");
            exit(1);
        }
        $autoload = getenv('REDLOCK_COMPOSER_AUTOLOAD');
        if ($autoload === false || !is_file($autoload)) {
            fwrite(STDERR, "REDLOCK_COMPOSER_AUTOLOAD must name the vendor/autoload.php of an installed project (tests/harness/integrations/run.sh does it)\n");
            exit(1);
        }
        require_once $autoload;
        TestNodes::init();
        self::prefix(''); // fixed now: child processes inherit it
    }

    /**
     * A key prefix of this run's own (shared with its forks and child
     * processes through the environment): runs never meet.
     */
    public static function prefix(string $suite): string
    {
        static $rand = null;
        if ($rand === null) {
            $rand = getenv('REDLOCK_INTEG_RUN') ?: bin2hex(random_bytes(4));
            putenv("REDLOCK_INTEG_RUN=$rand");
        }
        return "it:$suite:$rand:";
    }

    /**
     * Run $code in a child PHP (same extension, autoloader and nodes, this
     * file loaded); returns [exit code, output]. Bounded by $timeout seconds.
     */
    public static function php(string $code, int $timeout = 20): array
    {
        $file = tempnam(sys_get_temp_dir(), 'rlinteg');
        file_put_contents($file, "<?php\nrequire " . var_export(__FILE__, true) . ";\nIntegrationSupport::init();\n" . $code);
        $cmd = 'timeout ' . $timeout . ' ' . escapeshellarg(PHP_BINARY);
        $ext = getenv('REDLOCK_SO');
        if ($ext !== false && $ext !== '') {
            $cmd .= ' -d ' . escapeshellarg('extension=' . $ext);
        }
        $out = [];
        $rc = -1;
        exec($cmd . ' -f ' . escapeshellarg($file) . ' 2>&1', $out, $rc);
        unlink($file);
        return [$rc, implode("\n", $out)];
    }
}
