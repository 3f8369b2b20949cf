--TEST--
RedLock::releaseAll(): request end's release for worker runtimes (a worker loop serving many requests, counts, what it leaves alone)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new();          // made once, as a worker does (FrankenPHP worker mode, RoadRunner, Octane)
$base = rl_name('release_all');
$res = fn(int $k): string => "$base:$k";

echo "nothing held: ", RedLock::releaseAll(), "\n";

// One PHP process serving many fake requests, each ended by releaseAll(). Every
// request locks the same resources (60 s TTL): one that survived an iteration
// would make the next iteration's lock() a conflict.
$bad = [];
$confirmed = 0;          // releases a quorum confirmed, by whichever call
$released0 = $rl->stats()['released'];
for ($i = 1; $i <= 12; $i++) {
    $n = $i % 4 + 1;     // 1 to 4 locks in this request
    $locks = [];
    for ($k = 0; $k < $n; $k++) {
        $l = $rl->lock($res($k), 60000);
        if ($l === null) { $bad[] = "request $i: {$res($k)} still held from an earlier request"; continue; }
        $locks[$k] = $l;
    }
    $explicit = 0;       // released by the request itself: not released (nor counted) again
    if ($i % 2 === 0) { $explicit = (int) $locks[0]->release(); }
    if ($n >= 3) { unset($locks[$n - 1]); }  // object dropped: the lock stays held until the request's end
    // not the worker's to release: a lock without auto_release, and a restored one
    $manual = $rl->lock("$base:manual", 60000, ['auto_release' => false]);
    $restored = $rl->restore("$base:manual", $manual->token);

    $got = RedLock::releaseAll();
    if ($got !== $n - $explicit) { $bad[] = "request $i: releaseAll() returned $got, want " . ($n - $explicit); }
    foreach ($locks as $k => $l) {
        if (!$l->isReleased() || $l->isValid() || $l->remaining() !== 0) { $bad[] = "request $i: lock $k still looks held"; }
    }
    if ($manual->isReleased() || !$manual->isValid() || !$restored->isHeld()) { $bad[] = "request $i: the auto_release=false lock was released"; }
    if (!$manual->release()) { $bad[] = "request $i: the auto_release=false lock could not be released"; }
    $confirmed += $got + $explicit + 1;
}
echo "worker loop: ", $bad ? implode("; ", $bad) : 'every request locked, every lock released', "\n";
$left = 0;
for ($k = 0; $k < 4; $k++) { $left += rl_count_keys($res($k)); }
echo "keys left on the nodes: $left\n";
echo "stats released: ", $rl->stats()['released'] - $released0 === $confirmed ? "= confirmed releases" : "wrong", "\n";

// a lock that was lost meanwhile is not counted, and the new holder's key stays
$a = $rl->lock("$base:lost", 60000);
$rl->forceRelease("$base:lost");
$other = $rl->lock("$base:lost", 60000, ['auto_release' => false]);
echo "lost lock: releaseAll() = ", RedLock::releaseAll(), ", new holder's keys ", rl_count_value("$base:lost", $other->token), "\n";
$other->release();

// watchdogs stop, as at request end: an auto_extend lock without auto_release then ends at its TTL
$w = $rl->lock("$base:watched", 300, ['auto_extend' => true]);
$wk = $rl->lock("$base:watched-kept", 300, ['auto_extend' => true, 'auto_release' => false]);
usleep(700000);      // past the TTL: held by the watchdog only
echo "auto_extend before: ", rl_count_keys("$base:watched"), " ", rl_count_keys("$base:watched-kept"), "\n";
echo "auto_extend: releaseAll() = ", RedLock::releaseAll(), "\n";
usleep(700000);      // past the TTL again: nothing extends it now
echo "auto_extend after: ", rl_count_keys("$base:watched"), " ", rl_count_keys("$base:watched-kept"), "\n";

// a forked child releases none of its parent's locks
$p = $rl->lock("$base:parent", 60000);
$pid = pcntl_fork();
if ($pid === 0) {
    $n = RedLock::releaseAll();
    exit($n === 0 ? 0 : 1);
}
pcntl_waitpid($pid, $st);
echo "fork child: ", pcntl_wexitstatus($st) === 0 ? "released 0" : "released some", ", parent's keys ", rl_count_keys("$base:parent"), "\n";
echo "parent: releaseAll() = ", RedLock::releaseAll(), "\n";

// request end still releases what was locked after the last releaseAll(), and
// releaseAll() works from a shutdown function
[$rc, $out] = rl_php_child('$rl = rl_new(); $rl->lock(' . var_export("$base:c1", true) . ', 60000);'
    . ' echo RedLock::releaseAll(), "\n"; $rl->lock(' . var_export("$base:c2", true) . ', 60000);'
    . ' register_shutdown_function(function () use ($rl) { $rl->lock(' . var_export("$base:c3", true) . ', 60000);'
    . ' echo "shutdown: ", RedLock::releaseAll(), "\n"; });');
echo "child: ", str_replace("\n", "; ", trim($out)), "; keys left ",
    rl_count_keys("$base:c1") + rl_count_keys("$base:c2") + rl_count_keys("$base:c3"), "\n";
?>
--EXPECT--
nothing held: 0
worker loop: every request locked, every lock released
keys left on the nodes: 0
stats released: = confirmed releases
lost lock: releaseAll() = 0, new holder's keys 5
auto_extend before: 5 5
auto_extend: releaseAll() = 1
auto_extend after: 0 0
fork child: released 0, parent's keys 5
parent: releaseAll() = 1
child: 1; shutdown: 2; keys left 0
