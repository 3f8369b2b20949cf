--TEST--
RedLock::metrics(): one table for the process and its forked children (mapped at its first request), a child SIGKILLed in the middle of its locks leaves it consistent, phpinfo() shows the totals
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
require __DIR__ . '/metrics.inc';
const ACQ = ['redlock_acquisitions_total', ['mode' => 'exclusive']];
function acq(array $m): int { return rlm_counter($m, ...ACQ); }

$res = rl_name('mfork');
$kids = [];
for ($k = 0; $k < 3; $k++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $rl = rl_new(['retry_count' => 0]);
        for ($i = 0; $i < 10; $i++) {
            $l = $rl->lock("$res:$k:$i", 5000);
            $l?->release();
        }
        exit(0);
    }
    $kids[] = $pid;
}
foreach ($kids as $p) pcntl_waitpid($p, $st);
$m1 = rlm_parse(RedLock::metrics());
echo "problems: ", $m1['problems'] ? implode("\n", $m1['problems']) : 'none', "\n";
echo "the children's acquisitions, releases, attempts: ", acq($m1), " ",
    rlm_counter($m1, 'redlock_releases_total'), " ", rlm_counter($m1, 'redlock_attempts_total'), "\n";
$nodes = rl_nodes();
sort($nodes);
$seen = rlm_nodes($m1, 'redlock_node_requests_total');
sort($seen);
echo "every node has its series: ", $seen === $nodes ? 'yes' : json_encode($seen), "\n";

// a child reads the same table
$f = sys_get_temp_dir() . "/rl-metrics-$res";
if (($pid = pcntl_fork()) === 0) {
    file_put_contents($f, RedLock::metrics());
    exit(0);
}
pcntl_waitpid($pid, $st);
$mc = rlm_parse(file_get_contents($f));
unlink($f);
echo "a child's metrics() = the parent's: ", rlm_figures($mc) === rlm_figures(rlm_parse(RedLock::metrics())) ? 'yes' : 'no', "\n";

// a child killed in the middle of its lock/release loop
if (($pid = pcntl_fork()) === 0) {
    $rl = rl_new(['retry_count' => 0]);
    $t0 = hrtime(true);
    for ($i = 0; rl_ms($t0) < 10000; $i++) {
        $l = $rl->lock("$res:k:$i", 5000);
        $l?->release();
    }
    exit(0);
}
$t0 = hrtime(true);
while (acq(rlm_parse(RedLock::metrics())) < acq($m1) + 20 && rl_ms($t0) < 5000) usleep(2000);
exec('kill -KILL ' . (int)$pid);
pcntl_waitpid($pid, $st);
echo "killed: ", var_export(pcntl_wifsignaled($st) && pcntl_wtermsig($st) === 9, true), "\n";
$m2 = rlm_parse(RedLock::metrics());
echo "problems after the kill: ", $m2['problems'] ? implode("\n", $m2['problems']) : 'none', "\n";
$wait = rlm_hist_series($m2['families'], 'redlock_wait_seconds')['[]'];
// a worker dies between its two adds at most once: a count and its counter differ by at most 1
echo "wait count ~ acquisitions: ", abs($wait['count'] - acq($m2)) <= 1 ? 'yes' : "{$wait['count']} vs " . acq($m2), "\n";
$rl = rl_new(['retry_count' => 0]);
for ($i = 0; $i < 20; $i++) {
    $l = $rl->lock("$res:p:$i", 5000);
    $l?->release();
}
$m3 = rlm_parse(RedLock::metrics());
echo "then 20 more: acquisitions +", acq($m3) - acq($m2), ", releases +",
    rlm_counter($m3, 'redlock_releases_total') - rlm_counter($m2, 'redlock_releases_total'), "\n";
echo "node slots: ", rlm_value($m3, 'redlock_metrics_node_slots', 'redlock_metrics_node_slots'), "\n";
echo "problems: ", $m3['problems'] ? implode("\n", $m3['problems']) : 'none', "\n";

ob_start();
phpinfo(INFO_MODULES);
$info = ob_get_clean();
preg_match('/^Metrics => (.*)$/m', $info, $mode);
preg_match('/^Metrics: acquisitions => (\d+)$/m', $info, $a);
echo "phpinfo: ", $mode[1] ?? '?', "; acquisitions = metrics(): ", var_export((int)($a[1] ?? -1) === acq($m3), true), "\n";
?>
--EXPECTF--
problems: none
the children's acquisitions, releases, attempts: 30 30 30
every node has its series: yes
a child's metrics() = the parent's: yes
killed: true
problems after the kill: none
wait count ~ acquisitions: yes
then 20 more: acquisitions +20, releases +20
node slots: 5
problems: none
phpinfo: shared by this process and its children, %d KiB; acquisitions = metrics(): true
