--TEST--
auto_extend and fork(): the child has no watchdog and does not take over the parent's locks (which the parent keeps extending); it can watch locks of its own
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('fork');
$out = sys_get_temp_dir() . '/rl-wd-fork-' . getmypid();
@unlink($out);
$l = $rl->lock($res, 600, ['auto_extend' => true]);
$ext0 = $rl->stats()['auto_extended'];
$pid = pcntl_fork();
if ($pid === 0) {
    $r = ['isValid' => $l->isValid(), 'remaining' => $l->remaining(), 'extend' => $l->extend(600),
          'release' => $l->release()];
    $own = $rl->lock($res . ':child', 600, ['auto_extend' => true]);
    sleep(1);
    $r['own_valid_after_1s'] = $own->isValid();
    $r['own_release'] = $own->release();
    file_put_contents($out, json_encode($r));
    exit(0); // request end in the child: it must not stop or release the parent's lock
}
sleep(1);
pcntl_waitpid($pid, $status);
echo @file_get_contents($out), "\n";
@unlink($out);
usleep(700000); // past the ttl again after the child is gone
echo "parent: isValid ", var_export($l->isValid(), true), ", held on 5 nodes: ", rl_count_value($res, $l->token), "\n";
echo "parent's watchdog kept extending: ", var_export($rl->stats()['auto_extended'] - $ext0 >= 4, true), "\n";
var_dump($l->release());
?>
--EXPECT--
{"isValid":false,"remaining":0,"extend":false,"release":false,"own_valid_after_1s":true,"own_release":true}
parent: isValid true, held on 5 nodes: 5
parent's watchdog kept extending: true
bool(true)
