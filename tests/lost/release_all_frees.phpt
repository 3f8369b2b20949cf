--TEST--
on_lost in a worker runtime: releaseAll() between jobs lets go of every job's Lock (the request's list of watched locks does not grow)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('lost-worker');
$refs = [];
$mem = [];
// 50 "jobs" of a worker loop: a lock with on_lost, no release() by the job, releaseAll() after it
for ($job = 0; $job < 50; $job++) {
    $l = $rl->lock("$res:$job", 10000, ['on_lost' => fn($l) => print("lost!\n")]);
    $refs[] = WeakReference::create($l);
    unset($l);
    $n = RedLock::releaseAll();
    if ($n !== 1) echo "job $job: releaseAll() gave $n\n";
    if ($job === 9 || $job === 49) $mem[] = memory_get_usage();
}
$alive = count(array_filter($refs, fn($r) => $r->get() !== null));
echo "Locks still alive after releaseAll(): $alive of 50\n";
echo "memory after job 10 and job 50 within 4 KiB: ", var_export(abs($mem[1] - $mem[0]) < 4096, true), "\n";
echo "keys left: ", rl_count_keys("$res:0") + rl_count_keys("$res:49"), "\n";
?>
--EXPECT--
Locks still alive after releaseAll(): 0 of 50
memory after job 10 and job 50 within 4 KiB: true
keys left: 0
