--TEST--
wait: redlock.wake_on_release INI default; 8 waiters on one release: one wins, the others go back to waiting, no overlap, no retry storm
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
ini_set('redlock.wake_on_release', '0');
$res = rl_name('herd');
$h = wait_holder($res, 200);
$t0 = hrtime(true);
$l = rl_new()->lock($res, 10000, ['wait' => 3000, 'retry_delay' => 1000, 'retry_jitter' => 0]);
echo "INI off: polled: ", rl_ms($t0) >= 900 ? 'yes' : 'no', "\n";
$l->release();
wait_holder_done($h);
ini_set('redlock.wake_on_release', '1');

// 8 processes wait for one holder; each holds 20 ms; all must be served one by one
$h = wait_holder($res, 300);
$dir = sys_get_temp_dir() . '/rl-herd-' . getmypid();
@mkdir($dir);
$before = 0;
for ($i = 1; $i <= 5; $i++) $before += rl_cmd_calls($i, 'evalsha') + rl_cmd_calls($i, 'set');
$pids = [];
for ($k = 0; $k < 8; $k++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $l = rl_new()->lock($res, 10000, ['wait' => 8000]);
        $a = hrtime(true);
        usleep(20000);
        $r = hrtime(true);
        $l?->release();
        file_put_contents("$dir/$k", $l ? "$a $r" : 'none');
        exit(0);
    }
    $pids[] = $pid;
}
$t0 = hrtime(true);
foreach ($pids as $p) pcntl_waitpid($p, $st);
wait_holder_done($h);
$ms = rl_ms($t0);
$iv = [];
foreach (glob("$dir/*") as $f) {
    $c = file_get_contents($f);
    unlink($f);
    if ($c !== 'none') $iv[] = array_map('intval', explode(' ', $c));
}
rmdir($dir);
usort($iv, fn($x, $y) => $x[0] <=> $y[0]);
$overlaps = 0;
for ($i = 1; $i < count($iv); $i++) $overlaps += $iv[$i][0] < $iv[$i - 1][1];
$cmds = -$before;
for ($i = 1; $i <= 5; $i++) $cmds += rl_cmd_calls($i, 'evalsha') + rl_cmd_calls($i, 'set');
echo "served: ", count($iv), ", overlaps: $overlaps\n";
// 300 ms held + 8 x 20 ms: well under a second when each release wakes the next
echo "all served fast: ", $ms < rl_slack(1500) ? 'yes' : "no ($ms ms)", "\n";
// per node and acquisition: SET, the attempt after subscribing, the winning attempt,
// the release (and its script's SET)... a storm would be hundreds
echo "no retry storm: ", $cmds / 5 / 8 < 30 ? 'yes' : "no (" . ($cmds / 40) . " per node and acquisition)", "\n";
rl_del($res);
?>
--EXPECT--
INI off: polled: yes
served: 8, overlaps: 0
all served fast: yes
no retry storm: yes
