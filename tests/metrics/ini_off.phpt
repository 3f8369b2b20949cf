--TEST--
redlock.metrics=0: no shared table, metrics() gives this process' figures (a forked child's are its own), PHP_INI_SYSTEM
--EXTENSIONS--
redlock
pcntl
--INI--
redlock.metrics=0
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
require __DIR__ . '/metrics.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('moff');
for ($i = 0; $i < 2; $i++) $rl->lock("$res:$i", 5000)?->release();
$f = sys_get_temp_dir() . "/rl-metrics-$res";
if (($pid = pcntl_fork()) === 0) {
    for ($i = 0; $i < 5; $i++) $rl->lock("$res:c:$i", 5000)?->release();
    file_put_contents($f, RedLock::metrics());
    exit(0);
}
pcntl_waitpid($pid, $st);
$m = rlm_parse(RedLock::metrics());
$c = rlm_parse(file_get_contents($f));
unlink($f);
echo "problems: ", $m['problems'] || $c['problems'] ? implode("\n", array_merge($m['problems'], $c['problems'])) : 'none', "\n";
echo "missing families: ", implode(',', rlm_missing($m)) ?: 'none', "\n";
echo "parent: ", rlm_counter($m, 'redlock_acquisitions_total', ['mode' => 'exclusive']), ", shared ",
    rlm_value($m, 'redlock_metrics_shared', 'redlock_metrics_shared'), "\n";
// the child started from a copy of its parent's figures, as stats() does
echo "child: ", rlm_counter($c, 'redlock_acquisitions_total', ['mode' => 'exclusive']), "\n";
echo "= stats(): ", var_export(rlm_counter($m, 'redlock_acquisitions_total', ['mode' => 'exclusive']) === $rl->stats()['acquired'], true), "\n";
echo "nodes: ", count(rlm_nodes($m, 'redlock_node_requests_total')), "\n";
var_dump(ini_get('redlock.metrics'), ini_set('redlock.metrics', '1'));
ob_start();
phpinfo(INFO_MODULES);
preg_match('/^Metrics => (.*)$/m', ob_get_clean(), $mode);
echo $mode[1] ?? '?', "\n";
?>
--EXPECT--
problems: none
missing families: none
parent: 2, shared 0
child: 7
= stats(): true
nodes: 5
string(1) "0"
bool(false)
this process only (redlock.metrics=0)
