--TEST--
INI: every option has a redlock.* default (PHP_INI_ALL) used by new RedLock objects
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
foreach (['retry_count', 'retry_delay', 'retry_jitter', 'wait', 'drift_factor', 'connect_timeout',
          'timeout', 'persistent', 'prefix', 'fencing', 'auto_release', 'throw_on_lost', 'wake_on_release', 'fair'] as $o) {
    $v = ini_get("redlock.$o");
    echo "$o: ", $v === false ? 'MISSING' : var_export($v, true), "\n";
}
$all = ini_get_all('redlock');
// redlock.metrics is not an option: read once at startup (RedLock::metrics())
echo "redlock.metrics: ", $all['redlock.metrics']['access'] === INI_SYSTEM ? 'PHP_INI_SYSTEM' : 'other', "\n";
unset($all['redlock.metrics']);
echo "all PHP_INI_ALL: ", var_export(count(array_filter($all, fn($e) => $e['access'] === INI_ALL)) === count($all), true), "\n";

$prefix = rl_name('ini') . ':';
ini_set('redlock.prefix', $prefix);
ini_set('redlock.retry_count', '0');
$rl = rl_new();
$res = 'r';
$l = $rl->lock($res, 5000);
echo "ini prefix used: ", rl_count_value($prefix . $res, $l->token), "\n";
$t0 = hrtime(true);
var_dump($rl->lock($res, 5000));
echo "ini retry_count 0: ", rl_ms($t0) < 150 ? 'fast' : 'slow', "\n";
// constructor options win over INI
$t0 = hrtime(true);
var_dump(rl_new(['retry_count' => 1, 'retry_delay' => 100, 'retry_jitter' => 0])->lock($res, 5000));
echo "constructor retry_count 1: ", rl_ms($t0) >= 95 ? 'retried' : 'not retried', "\n";
$l->release();
rl_del($prefix . $res);
?>
--EXPECTF--
retry_count: '3'
retry_delay: '200'
retry_jitter: '100'
wait: '0'
drift_factor: '0.01'
connect_timeout: '50'
timeout: '50'
persistent: '1'
prefix: ''
fencing: '0'
auto_release: '1'
throw_on_lost: '0'
wake_on_release: '1'
fair: '0'
redlock.metrics: PHP_INI_SYSTEM
all PHP_INI_ALL: true
ini prefix used: 5
NULL
ini retry_count 0: fast
NULL
constructor retry_count 1: retried
