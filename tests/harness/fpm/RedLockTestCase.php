<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** Shared helpers for the fpm / CLI tests. */
abstract class RedLockTestCase extends TestCase
{
    /** @var list<FpmHarness> */
    private array $fpms = [];

    public static function so(): ?string
    {
        $so = getenv('REDLOCK_SO');
        return ($so !== false && $so !== '' && is_file($so)) ? realpath($so) : null;
    }

    /**
     * php -d arguments that load the code under test: -d extension=REDLOCK_SO,
     * or (harness self-check only) REDLOCK_TEST_PREPEND, a userland stand-in
     * loaded with auto_prepend_file.
     */
    public static function phpLoadArgs(): array
    {
        $pre = getenv('REDLOCK_TEST_PREPEND');
        if ($pre !== false && $pre !== '') {
            return ['-d', "auto_prepend_file=$pre"];
        }
        $so = self::so();
        return $so === null ? [] : ['-d', "extension=$so"];
    }

    /** Skips the test unless there is something to test; returns the php -d args. */
    protected function requireExtension(): array
    {
        $args = self::phpLoadArgs();
        if ($args === []) {
            $this->markTestSkipped('REDLOCK_SO not set or not a file (build modules/redlock.so first)');
        }
        return $args;
    }

    /** A resource name unique to this run and test. */
    protected function res(string $what): string
    {
        static $run = null;
        $run ??= bin2hex(random_bytes(3));
        return "fpmtest:$run:" . $this->getName(false) . ":$what";
    }

    protected function nodesParam(): string
    {
        return implode(',', TestNodes::$nodes);
    }

    protected function startFpm(array $opts = []): FpmHarness
    {
        $h = new FpmHarness($opts);
        $h->start();
        $this->fpms[] = $h;
        return $h;
    }

    protected function tearDown(): void
    {
        foreach ($this->fpms as $h) {
            if ($this->hasFailed()) {
                fwrite(STDERR, "\n[fpm logs for {$this->getName()}]\n" . substr($h->logs(), -4000) . "\n");
            }
            $h->stop();
        }
        $this->fpms = [];
    }

    /** Decode the JSON line "RESULT {...}" a handler/script printed. */
    protected function result(string $body): array
    {
        if (!preg_match('/^RESULT (\{.*\})$/m', $body, $m)) {
            $this->fail("no RESULT line in output:\n" . substr($body, 0, 3000));
        }
        return json_decode($m[1], true, 512, JSON_THROW_ON_ERROR);
    }

    protected function tokenFrom(string $body): string
    {
        if (!preg_match('/^TOKEN ([0-9a-f]{40})$/m', $body, $m)) {
            $this->fail("no TOKEN line (lock not acquired?) in output:\n" . substr($body, 0, 3000));
        }
        return $m[1];
    }

    protected static function metric(string $line): void
    {
        $f = getenv('REDLOCK_FPM_METRICS');
        if ($f) {
            file_put_contents($f, date('H:i:s ') . $line . "\n", FILE_APPEND);
        }
        fwrite(STDERR, "\n[metric] $line\n");
    }

    /** Assert $key is held with $token on every node. */
    protected function assertHeldEverywhere(string $key, string $token, string $msg = ''): void
    {
        $vals = TestNodes::values($key);
        $this->assertSame(array_fill(0, count(TestNodes::$nodes), $token), $vals,
            "$msg: '$key' must be held with token $token on every node");
    }

    /** Assert $key is absent on every node (bounded wait for a late release). */
    protected function assertReleasedEverywhere(string $key, string $msg = '', float $wait = 1.0): void
    {
        TestNodes::waitFor(fn() => TestNodes::present($key) === 0, $wait);
        $vals = TestNodes::values($key);
        $this->assertSame(array_fill(0, count(TestNodes::$nodes), null), $vals,
            "$msg: '$key' must be gone from every node");
    }

    /**
     * Read stdout/stderr of a proc_open()ed process until it exits (bounded;
     * SIGKILL on timeout). @return array{0:string,1:string,2:int}
     */
    public static function collect($proc, array $pipes, float $timeout): array
    {
        $out = ['', ''];
        foreach ([1, 2] as $k) {
            stream_set_blocking($pipes[$k], false);
        }
        $deadline = microtime(true) + $timeout;
        $open = [1 => $pipes[1], 2 => $pipes[2]];
        while ($open && microtime(true) < $deadline) {
            $r = array_values($open);
            $w = $e = null;
            if (@stream_select($r, $w, $e, 0, 50000) > 0) {
                foreach ($open as $k => $s) {
                    if (in_array($s, $r, true)) {
                        $c = fread($s, 65536);
                        if ($c === '' || $c === false) {
                            if (feof($s)) {
                                unset($open[$k]);
                            }
                        } else {
                            $out[$k - 1] .= $c;
                        }
                    }
                }
            }
        }
        $code = -1;
        while (microtime(true) < $deadline) {
            $st = proc_get_status($proc);
            if (!$st['running']) {
                $code = $st['exitcode'];
                break;
            }
            usleep(10000);
        }
        if ($code === -1) {
            $st = proc_get_status($proc);
            if ($st['running']) {
                posix_kill($st['pid'], SIGKILL);
                $out[1] .= "\n[killed after {$timeout}s]";
            }
        }
        foreach ([1, 2] as $k) {
            @fclose($pipes[$k]);
        }
        proc_close($proc);
        return [$out[0], $out[1], $code];
    }
}
