--TEST--
Retries: retry_count extra attempts, spaced by retry_delay + jitter, and bounded in time
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$holder = rl_new();
$res = rl_name('retries');
$held = $holder->lock($res, 20000);
$rl = rl_new();

function attempt(RedLock $rl, string $res, array $opts): array {
    $sets = rl_cmd_calls(1, 'set');
    $t0 = hrtime(true);
    $r = $rl->lock($res, 5000, $opts);
    return [$r, rl_ms($t0), rl_cmd_calls(1, 'set') - $sets];
}

[$r, $ms, $n] = attempt($rl, $res, ['retry_count' => 0]);
echo "retry_count 0: ", var_export($r, true), ", attempts $n, ", $ms < 150 ? 'fast' : "slow ($ms)", "\n";

[$r, $ms, $n] = attempt($rl, $res, ['retry_count' => 3, 'retry_delay' => 80, 'retry_jitter' => 0]);
echo "retry_count 3 delay 80: ", var_export($r, true), ", attempts $n, ", ($ms >= 235 && $ms < 700) ? 'in bounds' : "out of bounds ($ms)", "\n";

[$r, $ms, $n] = attempt($rl, $res, ['retry_count' => 2, 'retry_delay' => 50, 'retry_jitter' => 100]);
echo "retry_count 2 delay 50 jitter 100: ", var_export($r, true), ", attempts $n, ", ($ms >= 95 && $ms < 700) ? 'in bounds' : "out of bounds ($ms)", "\n";

$ctor = rl_new(['retry_count' => 1, 'retry_delay' => 100, 'retry_jitter' => 0]);
[$r, $ms, $n] = attempt($ctor, $res, []);
echo "constructor retry_count 1 delay 100: ", var_export($r, true), ", attempts $n, ", ($ms >= 95 && $ms < 500) ? 'in bounds' : "out of bounds ($ms)", "\n";

// default: 3 retries, 200 ms + up to 100 ms jitter each
[$r, $ms, $n] = attempt($rl, $res, []);
echo "defaults: ", var_export($r, true), ", attempts $n, ", ($ms >= 590 && $ms < 1400) ? 'in bounds' : "out of bounds ($ms)", "\n";

echo "holder intact on: ", rl_count_value($res, $held->token), "\n";
$held->release();
rl_del($res);
?>
--EXPECT--
retry_count 0: NULL, attempts 1, fast
retry_count 3 delay 80: NULL, attempts 4, in bounds
retry_count 2 delay 50 jitter 100: NULL, attempts 3, in bounds
constructor retry_count 1 delay 100: NULL, attempts 2, in bounds
defaults: NULL, attempts 4, in bounds
holder intact on: 5
