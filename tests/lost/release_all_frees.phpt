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
// 50 "jobs" of a worker loop: a lock with on_lost, no release() by the job, releaseAll() after it
$job = function (int $i) use ($rl, $res) {
    $l = $rl->lock("$res:$i", 10000, ['on_lost' => fn($l) => print("lost!\n")]);
    $ref = WeakReference::create($l);
    unset($l);
    $n = RedLock::releaseAll();
    if ($n !== 1) echo "job $i: releaseAll() gave $n\n";
    return $ref;
};
for ($i = 0; $i < 50; $i++) $refs[] = $job($i);
// then 100 more, keeping nothing: the memory stays where it was after the first 10 of them
$mem = [];
for ($i = 50; $i < 150; $i++) {
    $job($i);
    if ($i === 59 || $i === 149) $mem[] = memory_get_usage();
}
$alive = count(array_filter($refs, fn($r) => $r->get() !== null));
echo "Locks still alive after releaseAll(): $alive of 50\n";
echo "memory after 10 and after 100 more jobs within 1 KiB: ", var_export(abs($mem[1] - $mem[0]) < 1024, true), " (", $mem[1] - $mem[0], " bytes)\n";
echo "keys left: ", rl_count_keys("$res:0") + rl_count_keys("$res:149"), "\n";
?>
--EXPECTF--
Locks still alive after releaseAll(): 0 of 50
memory after 10 and after 100 more jobs within 1 KiB: true (%s bytes)
keys left: 0
