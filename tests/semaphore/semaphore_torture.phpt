--TEST--
semaphore torture (short): 8 processes take permits of a limit-3 semaphore for 4 s while nodes are paused at random (at most 2 at once); from the recorded validity intervals, never more than 3 holders at once, and the count does reach 3
--EXTENSIONS--
redlock
pcntl
posix
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../lock_all/multi.inc';
$r = rl_name('semt');
$limit = 3;
$procs = 8;
$secs = 4;
$dir = sys_get_temp_dir() . "/rl-semt-" . getmypid();
@mkdir($dir);
$pids = [];
for ($p = 0; $p < $procs; $p++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $rl = rl_new(['wait' => 1000, 'retry_delay' => 20, 'retry_jitter' => 20]);
        $iv = [];
        $err = '';
        $end = microtime(true) + $secs;
        try {
            while (microtime(true) < $end) {
                try {
                    $l = $rl->semaphore($r, $limit, 1000);
                } catch (RedLock\QuorumException $e) {
                    continue;
                }
                if (!$l) continue;
                // the validity the lock claims, on hrtime (the same clock in every process)
                $from = hrtime(true);
                $until = $from + $l->remaining() * 1000000;
                usleep(random_int(1000, 20000));
                // (held until release() is called: its deletes may free the slot for another
                // holder before its own reply comes back)
                $iv[] = [$from, min($until, hrtime(true))];
                $l->release();
            }
        } catch (Throwable $e) {
            $err = get_class($e) . ': ' . $e->getMessage();
        }
        rl_put_atomic("$dir/$p.json", json_encode(['iv' => $iv, 'err' => $err]));
        exit(0);
    }
    $pids[] = $pid;
}
// the fault injector: pause 1 or 2 random nodes for 50-300 ms, then resume them
$end = microtime(true) + $secs;
$pauses = 0;
try {
    while (microtime(true) < $end) {
        $down = (array) array_rand(range(1, 5), random_int(1, 2));
        foreach ($down as $i) rl_node_ctl('pause', $i + 1);
        $pauses += count($down);
        usleep(random_int(50000, 300000));
        foreach ($down as $i) rl_node_ctl('resume', $i + 1);
        usleep(random_int(50000, 200000));
    }
} finally {
    rl_restore_nodes();
}
foreach ($pids as $pid) pcntl_waitpid($pid, $st);
$events = []; $errs = []; $n = 0;
for ($p = 0; $p < $procs; $p++) {
    $f = json_decode((string) @file_get_contents("$dir/$p.json"), true);
    @unlink("$dir/$p.json");
    if (!$f) { $errs[] = "process $p left no result"; continue; }
    if ($f['err'] !== '') $errs[] = $f['err'];
    foreach ($f['iv'] as [$a, $b]) { $events[] = [$a, 1]; $events[] = [$b, -1]; $n++; }
}
@rmdir($dir);
// ends before starts at the same instant: touching intervals do not overlap
usort($events, fn($x, $y) => $x[0] <=> $y[0] ?: $x[1] <=> $y[1]);
$cur = 0; $max = 0;
foreach ($events as [, $d]) { $cur += $d; $max = max($max, $cur); }
echo "pauses injected: ", $pauses > 0 ? 'yes' : 'no', ", permits > 30: ", $n > 30 ? 'yes' : "no ($n)", "\n";
echo "most holders at once: ", $max <= $limit ? "at most $limit" : "$max", ", reached $limit: ", $max === $limit ? 'yes' : "no ($max)", "\n";
echo "errors: ", $errs ? implode('; ', $errs) : 'none', "\n";
rl_del("$r\0pL", ...array_map(fn($i) => "$r\0p$i", range(0, $limit - 1)));
?>
--CLEAN--
<?php require __DIR__ . '/../config.inc'; rl_restore_nodes(); ?>
--EXPECT--
pauses injected: yes, permits > 30: yes
most holders at once: at most 3, reached 3: yes
errors: none
