--TEST--
auto_extend: a 1 s lock is held through a blocking 5 s sleep(); another process fails to acquire it the whole time
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('sleep');
$out = sys_get_temp_dir() . '/rl-wd-sleep-' . getmypid();
@unlink($out);
$l = $rl->lock($res, 1000, ['auto_extend' => true]);
var_dump($l instanceof RedLock\Lock);
$ext0 = $rl->stats()['auto_extended'];

$pid = pcntl_fork();
if ($pid === 0) {
    // the contender: its own RedLock (its own connections), one try every 250 ms for 5 s
    $other = new RedLock(rl_nodes(), ['retry_count' => 0]);
    $tries = $got = 0;
    $t0 = hrtime(true);
    while (rl_ms($t0) < 4750) {
        usleep(250000);
        $tries++;
        if ($x = $other->lock($res, 1000)) {
            $got++;
            $x->release();
        }
    }
    file_put_contents($out, "$tries $got");
    exit(0);
}
sleep(5); // blocking: PHP does nothing meanwhile, the watchdog does
pcntl_waitpid($pid, $status);
[$tries, $got] = explode(' ', (string) @file_get_contents($out)) + [0, -1];
@unlink($out);
echo "contender tries >= 15: ", var_export($tries >= 15, true), ", acquired: $got\n";
echo "after 5 s: isValid ", var_export($l->isValid(), true), ", remaining in (0, 1000]: ",
    var_export($l->remaining() > 0 && $l->remaining() <= 1000, true), "\n";
echo "held on 5 nodes: ", rl_count_value($res, $l->token), "\n";
$p = rl_pttls($res);
echo "PTTL <= 1000 on every node: ", var_export(max($p) <= 1000 && min($p) > 0, true), "\n";
echo "watchdog extensions >= 12: ", var_export($rl->stats()['auto_extended'] - $ext0 >= 12, true), "\n";
echo "extended (by hand) unchanged: ", $rl->stats()['extended'], "\n";
var_dump($l->release());
echo "keys left: ", rl_count_keys($res), "\n";
?>
--EXPECT--
bool(true)
contender tries >= 15: true, acquired: 0
after 5 s: isValid true, remaining in (0, 1000]: true
held on 5 nodes: 5
PTTL <= 1000 on every node: true
watchdog extensions >= 12: true
extended (by hand) unchanged: 0
bool(true)
keys left: 0
