<?php
// symfony/lock: CombinedStore of N RedisStore (phpredis, persistent) with ConsensusStrategy.
// Uses bench/vendor (Composer) when present, else Debian's php-symfony-lock.
declare(strict_types=1);
require __DIR__ . '/common.php';
$a = bench_args();
$autoloads = [__DIR__ . '/../vendor/autoload.php', '/usr/share/php/Symfony/Component/Lock/autoload.php'];
$src = null;
foreach ($autoloads as $f) {
    if (is_file($f)) {
        require $f;
        $src = $f;
        break;
    }
}
if ($src === null || !class_exists(Symfony\Component\Lock\Store\CombinedStore::class)) {
    bench_skip('symfony', 'symfony/lock not installed (run bench/deps.sh)');
}
if (!extension_loaded('redis')) {
    bench_skip('symfony', 'phpredis (php-redis) not loaded');
}
$version = 'unknown';
if (class_exists(Composer\InstalledVersions::class) && Composer\InstalledVersions::isInstalled('symfony/lock')) {
    $version = Composer\InstalledVersions::getPrettyVersion('symfony/lock');
} elseif (str_starts_with($src, '/usr/share')) {
    $version = 'debian';
}

use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Lock\Store\CombinedStore;
use Symfony\Component\Lock\Store\RedisStore;
use Symfony\Component\Lock\Strategy\ConsensusStrategy;

/** phpredis connection that (re)connects lazily, so a down node is retried per call. */
final class BenchRedis extends Redis
{
    public function __construct(private string $h, private int $p)
    {
        parent::__construct();
    }

    private function up(): void
    {
        if (!$this->isConnected()) {
            $this->pconnect($this->h, $this->p, 0.05);   // throws RedisException when down
            $this->setOption(Redis::OPT_READ_TIMEOUT, 0.05);
        }
    }

    public function evalSha($sha, $args = [], $num_keys = 0): mixed
    {
        $this->up();
        return parent::evalSha($sha, $args, $num_keys);
    }

    public function eval($script, $args = [], $num_keys = 0): mixed
    {
        $this->up();
        return parent::eval($script, $args, $num_keys);
    }

    public function script($command, ...$scripts): mixed
    {
        $this->up();
        return parent::script($command, ...$scripts);
    }

    public function clearLastError(): bool
    {
        $this->up();
        return parent::clearLastError();
    }

    public function getLastError(): ?string
    {
        $this->up();
        return parent::getLastError();
    }
}

$stores = [];
foreach ($a['nodes'] as $n) {
    [$h, $p] = bench_hostport($n);
    $stores[] = new RedisStore(new BenchRedis($h, $p), 10.0);
}
$factory = new LockFactory(new CombinedStore($stores, new ConsensusStrategy()));

bench_run('symfony', $a,
    function (string $k) use ($factory) {
        $l = $factory->createLock($k, 10.0, false);
        return $l->acquire(false) ? $l : null;
    },
    function ($l): bool {
        try {
            $l->release();
            return true;
        } catch (Symfony\Component\Lock\Exception\LockReleasingException) {
            return false;
        }
    },
    ['version' => $version]);
