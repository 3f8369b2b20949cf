--TEST--
Read locks and waiting: readers waiting on a writer and a writer waiting on readers are woken on release (not at their retry timer, set far beyond it)
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/shared.inc';
// a retry timer far beyond the release: only a wake-up can be this fast
$wait = ['wait' => (int) rl_slack(8000), 'retry_delay' => (int) rl_slack(4000), 'retry_jitter' => 0];
$cases = [
    'a reader waits on a writer' => [false, true],
    'a writer waits on a reader' => [true, false],
];
foreach ($cases as $what => [$holderShared, $waiterShared]) {
    $r = rl_name('sh_wake');
    $file = sys_get_temp_dir() . '/rl-shwake-' . getmypid();
    @unlink($file); @unlink("$file.up");
    $pid = pcntl_fork();
    if ($pid === 0) {
        $rl = rl_new(['retry_count' => 0]);
        $l = $rl->lock($r, 20000, ['shared' => $holderShared]);
        rl_put_atomic("$file.up", $l ? 'held' : 'failed');
        usleep(400000);
        $l->release();
        rl_put_atomic($file, (string) hrtime(true));
        exit(0);
    }
    for ($i = 0, $n = (int) (rl_slack(5000) / 10); $i < $n && !file_exists("$file.up"); $i++) usleep(10000);
    $up = (string) @file_get_contents("$file.up");
    $rl = rl_new();
    $l = $rl->lock($r, 5000, ['shared' => $waiterShared] + $wait);
    $t = hrtime(true);
    pcntl_waitpid($pid, $st);
    $rel = (int) @file_get_contents($file);
    @unlink($file); @unlink("$file.up");
    $after = ($t - $rel) / 1e6;
    echo "$what: holder $up, ", $l ? 'acquired' : 'null', ", within 1000 ms of the release: ",
        $after < rl_slack(1000) ? 'yes' : "no ($after ms)", "\n";
    $l?->release();
    sh_del($r);
}
?>
--EXPECT--
a reader waits on a writer: holder held, acquired, within 1000 ms of the release: yes
a writer waits on a reader: holder held, acquired, within 1000 ms of the release: yes
