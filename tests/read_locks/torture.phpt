--TEST--
Read locks torture (short): 6 processes take one resource for 3 s, 2 of 3 times shared, else exclusive, waiting (woken on release); markers on the AUX node never find a writer together with a reader or another writer, readers do overlap, and writers get in
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/shared.inc';
$r = rl_name('sh_tort');
$procs = 6;
$secs = 3;
// REDLOCK_TEST_BREAK_SHARED=1: the writers take read locks too (the check must then find overlaps)
$broken = getenv('REDLOCK_TEST_BREAK_SHARED') === '1';
$dir = sys_get_temp_dir() . "/rl-shtort-" . getmypid();
@mkdir($dir);
$pids = [];
for ($p = 0; $p < $procs; $p++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $rl = rl_new(['wait' => 2000, 'retry_delay' => 20, 'retry_jitter' => 10]);
        $aux = rl_redis(rl_aux(), 2.0);
        $fig = ['reads' => 0, 'writes' => 0, 'overlaps' => 0, 'invalid' => 0, 'maxreaders' => 0, 'err' => ''];
        $end = microtime(true) + $secs;
        try {
            while (microtime(true) < $end) {
                $write = random_int(0, 2) === 0;
                $l = $rl->lock($r, 2000, ['shared' => !$write || $broken]);
                if (!$l) continue;
                if (!$l->isValid()) { $fig['invalid']++; $l->release(); continue; }
                // each side writes its marker first, then reads the other's (one Redis: one of two sees the other)
                if ($write) {
                    $fig['writes']++;
                    $aux->cmd('INCR', "$r:writers");
                    if ((int) $aux->cmd('GET', "$r:readers") > 0 || (int) $aux->cmd('GET', "$r:writers") > 1) $fig['overlaps']++;
                    usleep(random_int(200, 2000));
                    $aux->cmd('DECR', "$r:writers");
                } else {
                    $fig['reads']++;
                    $n = (int) $aux->cmd('INCR', "$r:readers");
                    $fig['maxreaders'] = max($fig['maxreaders'], $n);
                    if ((int) $aux->cmd('GET', "$r:writers") > 0) $fig['overlaps']++;
                    usleep(random_int(200, 4000));
                    $aux->cmd('DECR', "$r:readers");
                }
                if (!$l->isValid()) $fig['invalid']++;
                $l->release();
            }
        } catch (Throwable $e) {
            $fig['err'] = get_class($e) . ': ' . $e->getMessage();
        }
        rl_put_atomic("$dir/$p.json", json_encode($fig));
        exit(0);
    }
    $pids[] = $pid;
}
foreach ($pids as $pid) pcntl_waitpid($pid, $st);
$t = ['reads' => 0, 'writes' => 0, 'overlaps' => 0, 'invalid' => 0, 'maxreaders' => 0];
$errs = [];
for ($p = 0; $p < $procs; $p++) {
    $f = json_decode((string) @file_get_contents("$dir/$p.json"), true);
    @unlink("$dir/$p.json");
    if (!$f) { $errs[] = "process $p left no result"; continue; }
    foreach (['reads', 'writes', 'overlaps', 'invalid'] as $k) $t[$k] += $f[$k];
    $t['maxreaders'] = max($t['maxreaders'], $f['maxreaders']);
    if ($f['err'] !== '') $errs[] = $f['err'];
}
@rmdir($dir);
$aux = rl_redis(rl_aux());
$aux->cmd('DEL', "$r:readers", "$r:writers");
$slow = getenv('USE_ZEND_ALLOC') === '0';   // valgrind: every process many times slower
echo "reads > 10: ", $t['reads'] > ($slow ? 2 : 10) ? 'yes' : "no ({$t['reads']})", ", writes > 3: ", $t['writes'] > ($slow ? 1 : 3) ? 'yes' : "no ({$t['writes']})", "\n";
echo "readers overlapped (2 or more at once): ", $t['maxreaders'] >= 2 ? 'yes' : "no ({$t['maxreaders']})", "\n";
echo "overlaps: {$t['overlaps']}, invalid in the section: {$t['invalid']}\n";
echo "errors: ", $errs ? implode('; ', $errs) : 'none', "\n";
sh_del($r);
?>
--EXPECT--
reads > 10: yes, writes > 3: yes
readers overlapped (2 or more at once): yes
overlaps: 0, invalid in the section: 0
errors: none
