<?php
declare(strict_types=1);

namespace RedLock\Laravel\Tests;

use Illuminate\Contracts\Redis\LimiterTimeoutException;
use Illuminate\Support\Facades\Cache;
use PHPUnit\Framework\TestCase;
use RedLock\Laravel\Funnel;

/**
 * RedLock\Laravel\Funnel against Laravel's Redis::funnel() semantics (its
 * ConcurrencyLimiterTest: at most N run at once, the failure callback or
 * LimiterTimeoutException on timeout, the permit released after the callback,
 * also when it throws), with holders in other processes.
 */
final class FunnelTest extends TestCase
{
    protected function setUp(): void
    {
        MinimalApp::boot();
    }

    private function name(): string
    {
        return 'funnel:' . bin2hex(random_bytes(4));
    }

    public function testItLocksTasksWhenNoSlotAvailable(): void
    {
        $name = $this->name();
        $store = Cache::store('redlock');
        $held = [];
        // two slots, both taken inside nested callbacks; the third waits 0 s and fails
        $r = Funnel::for($store, $name)->limit(2)->block(0)->then(function () use ($store, $name, &$held) {
            $held[] = 1;
            return Funnel::for($store, $name)->limit(2)->block(0)->then(function () use ($store, $name, &$held) {
                $held[] = 2;
                return Funnel::for($store, $name)->limit(2)->block(0)->then(fn () => 'third ran', fn ($e) => $e);
            });
        });
        $this->assertSame([1, 2], $held);
        $this->assertInstanceOf(LimiterTimeoutException::class, $r);
        // released afterwards: all three fit one after the other
        $this->assertSame('ran', Funnel::for($store, $name)->limit(2)->block(0)->then(fn () => 'ran'));
    }

    public function testItThrowsWithoutAFailureCallback(): void
    {
        $name = $this->name();
        $store = Cache::store('redlock');
        $this->expectException(LimiterTimeoutException::class);
        Funnel::for($store, $name)->limit(1)->block(0)->then(fn () => Funnel::for($store, $name)->limit(1)->block(0)->then(fn () => 'no'));
    }

    public function testThePermitIsReleasedWhenTheCallbackThrows(): void
    {
        $name = $this->name();
        $store = Cache::store('redlock');
        try {
            Funnel::for($store, $name)->limit(1)->then(fn () => throw new \RuntimeException('boom'));
            $this->fail('no exception');
        } catch (\RuntimeException $e) {
            $this->assertSame('boom', $e->getMessage());
        }
        $this->assertSame('free', Funnel::for($store, $name)->limit(1)->block(0)->then(fn () => 'free'));
    }

    public function testBlockWaitsForAPermitReleasedInAnotherProcess(): void
    {
        $name = $this->name();
        $code = 'RedLock\Laravel\Tests\MinimalApp::boot();'
            . ' RedLock\Laravel\Funnel::for(Illuminate\Support\Facades\Cache::store("redlock"), ' . var_export($name, true) . ')'
            . '->limit(1)->block(0)->then(function () { echo "held\n"; usleep(500000); });';
        $file = tempnam(sys_get_temp_dir(), 'rlfn');
        file_put_contents($file, "<?php\nrequire " . var_export(\dirname(__DIR__, 3) . '/tests/harness/integrations/support.php', true)
            . ";\nIntegrationSupport::init();\nrequire " . var_export(__DIR__ . '/MinimalApp.php', true) . ";\n" . $code);
        register_shutdown_function(static fn () => @unlink($file));
        $proc = proc_open([PHP_BINARY, '-d', 'extension=' . getenv('REDLOCK_SO'), '-f', $file], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        stream_set_timeout($pipes[1], 10);
        $this->assertSame("held\n", fgets($pipes[1]));
        $t0 = hrtime(true);
        $this->assertSame('mine', Funnel::for(Cache::store('redlock'), $name)->limit(1)->block(5)->then(fn () => 'mine'));
        $ms = (hrtime(true) - $t0) / 1e6;
        $this->assertGreaterThan(300, $ms);
        $this->assertLessThan(2500, $ms);
        fclose($pipes[1]);
        fclose($pipes[2]);
        proc_close($proc);
    }

    public function testAtMostNAtOnceAcrossProcesses(): void
    {
        $name = $this->name();
        $dir = sys_get_temp_dir() . '/rlfn-' . getmypid();
        @mkdir($dir);
        $code = 'RedLock\Laravel\Tests\MinimalApp::boot(); $d = ' . var_export($dir, true) . '; $n = 0;'
            . ' for ($i = 0; $i < 6; $i++) { RedLock\Laravel\Funnel::for(Illuminate\Support\Facades\Cache::store("redlock"), '
            . var_export($name, true) . ')->limit(2)->block(5)->then(function () use ($d, &$n) {'
            . ' $f = "$d/" . getmypid() . "-" . $n++; touch($f); $c = count(glob("$d/*"));'
            . ' file_put_contents("$d.max", max((int) @file_get_contents("$d.max"), $c) . "\n", LOCK_EX); usleep(100000); unlink($f); }); }'
            . ' echo "done\n";';
        $file = tempnam(sys_get_temp_dir(), 'rlfn');
        file_put_contents($file, "<?php\nrequire " . var_export(\dirname(__DIR__, 3) . '/tests/harness/integrations/support.php', true)
            . ";\nIntegrationSupport::init();\nrequire " . var_export(__DIR__ . '/MinimalApp.php', true) . ";\n" . $code);
        $procs = [];
        for ($p = 0; $p < 4; $p++) {
            $procs[] = proc_open([PHP_BINARY, '-d', 'extension=' . getenv('REDLOCK_SO'), '-f', $file], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
            $outs[] = $pipes;
        }
        foreach ($outs as $pipes) {
            stream_set_timeout($pipes[1], 30);
            $this->assertSame("done\n", fgets($pipes[1]), (string) stream_get_contents($pipes[2]));
        }
        foreach ($procs as $p) proc_close($p);
        $max = (int) @file_get_contents("$dir.max");
        @unlink("$dir.max");
        @rmdir($dir);
        @unlink($file);
        // ("max" counts files, one per holder inside the callback: never more than the limit, and reached)
        $this->assertSame(2, $max);
    }
}
