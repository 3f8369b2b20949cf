--TEST--
Fair waiting, options: fair in the constructor, per call and INI (redlock.fair); fair asked with lockAll(), a shared lock() or semaphore() is a ValueError naming the combination; a default fair (constructor, INI) leaves those calls as they are; a fair lock() is queued (its entry on the nodes) only while it waits; stats() counts attempts and wakeups
--EXTENSIONS--
redlock
pcntl
posix
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/fair.inc';
$rl = rl_new();
$res = rl_name('fairin');
rl_expect('lockAll fair', fn () => $rl->lockAll([$res, "$res:2"], 1000, ['fair' => true]), 'ValueError', '"fair"', 'lockAll()');
rl_expect('shared fair', fn () => $rl->lock($res, 1000, ['shared' => true, 'fair' => true]), 'ValueError', '"fair"', '"shared"');
rl_expect('semaphore fair', fn () => $rl->semaphore($res, 3, 1000, ['fair' => true]), 'ValueError', '"fair"', 'semaphore()');
rl_expect('synchronized shared fair', fn () => $rl->synchronized($res, 1000, fn () => 1, ['shared' => true, 'fair' => true]), 'ValueError', '"fair"', '"shared"');
rl_expect('fair not a bool', fn () => $rl->lock($res, 1000, ['fair' => 'yes']), 'TypeError|ValueError', 'fair');
rl_expect('constructor fair not a bool', fn () => rl_new(['fair' => []]), 'TypeError|ValueError', 'fair');
// a default fair applies where it can: lockAll(), shared and semaphore() work as without it
$fr = rl_new(['fair' => true]);
$a = $fr->lockAll([$res, "$res:2"], 1000);
echo "constructor fair, lockAll(): ", $a ? 'locked' : 'null', "\n";
$a?->release();
$s = $fr->lock($res, 1000, ['shared' => true]);
echo "constructor fair, shared: ", $s?->mode, "\n";
$s?->release();
$p = $fr->semaphore($res, 2, 1000);
echo "constructor fair, semaphore(): ", $p?->mode, "\n";
$p?->release();
ini_set('redlock.fair', '1');
$ir = rl_new();
$a = $ir->lockAll([$res, "$res:3"], 1000);
echo "INI fair, lockAll(): ", $a ? 'locked' : 'null', "\n";
$a?->release();
ini_restore('redlock.fair');

// INI fair: a waiting lock() queues (its entry appears on the nodes while it waits)
foreach (['constructor' => fn () => rl_new(['fair' => true]), 'INI' => function () { ini_set('redlock.fair', '1'); $r = rl_new(); ini_restore('redlock.fair'); return $r; },
          'per call' => fn () => rl_new(), 'off' => fn () => rl_new()] as $how => $make) {
    $r = rl_name('fairin_q');
    $held = $rl->lock($r, 30000);
    $pid = pcntl_fork();
    if ($pid === 0) {
        $w = $make();
        $l = $w->lock($r, 5000, ['wait' => (int) rl_slack(3000)] + ($how === 'per call' ? ['fair' => true] : []));
        exit($l ? 0 : 1);
    }
    $q = fair_wait_queued($r, 1, $how === 'off' ? 500 : 3000);
    $held->release();
    pcntl_waitpid($pid, $st);
    echo "$how: queued ", var_export($q, true), ", acquired ", var_export(pcntl_wexitstatus($st) === 0, true), ", entries left ", fair_queued($r), "\n";
    fair_del($r);
}

// fair without wait: one attempt, no queue entry (it never waits)
$r = rl_name('fairin_nowait');
$held = $rl->lock($r, 30000);
$s0 = $rl->stats();
var_dump($rl->lock($r, 1000, ['fair' => true, 'retry_count' => 0]));
$s1 = $rl->stats();
echo "no wait: attempts +", $s1['attempts'] - $s0['attempts'], ", wakeups +", $s1['wakeups'] - $s0['wakeups'], ", queued ", fair_queued($r), "\n";
$held->release();
fair_del($r);
fair_del($res);
?>
--EXPECT--
lockAll fair: ValueError ok
shared fair: ValueError ok
semaphore fair: ValueError ok
synchronized shared fair: ValueError ok
fair not a bool: TypeError|ValueError ok
constructor fair not a bool: TypeError|ValueError ok
constructor fair, lockAll(): locked
constructor fair, shared: shared
constructor fair, semaphore(): permit
INI fair, lockAll(): locked
constructor: queued true, acquired true, entries left 0
INI: queued true, acquired true, entries left 0
per call: queued true, acquired true, entries left 0
off: queued false, acquired true, entries left 0
NULL
no wait: attempts +1, wakeups +0, queued 0
