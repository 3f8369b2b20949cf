--TEST--
lockAll: every key or none, one token and validity; a conflict on any resource is null and sets nothing; release/extend/isHeld act on all
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/multi.inc';
$a = rl_name('acct_a'); $b = rl_name('acct_b'); $c = rl_name('acct_c');
$rl = rl_new(['retry_count' => 0]);
$l = $rl->lockAll([$a, $b], 10000);
echo "acquired: ", $l ? 'yes' : 'no', ", resource is the first: ", $l->resource === $a ? 'yes' : 'no',
    ", resources: ", $l->resources === [$a, $b] ? 'as given' : json_encode($l->resources), ", mode: $l->mode\n";
echo "both keys ours on every node: ", json_encode(array_values(multi_per_node([$a, $b], $l->token))), "\n";
// (a quorum's answers decide: the last node's script may still be on its way, bounded wait)
for ($i = 0; $i < 50 && min(array_merge(rl_pttls($a), rl_pttls($b))) < 0; $i++) usleep(20000);
$p = array_merge(rl_pttls($a), rl_pttls($b));
echo "TTLs set: ", min($p) > 9000 && max($p) <= 10000 ? 'yes' : json_encode($p), "\n";
echo "valid: ", $l->isValid() && $l->remaining() > 9000 ? 'yes' : 'no', "\n";
// any one resource conflicts, alone or in another list (in any order); nothing of it is set
echo "lock(b): ", var_export($rl->lock($b, 1000), true), "\n";
echo "lockAll([c, b]): ", var_export($rl->lockAll([$c, $b], 1000), true), "\n";
echo "lockAll([b, a]): ", var_export($rl->lockAll([$b, $a], 1000), true), "\n";
echo "c set nowhere: ", json_encode(array_values(multi_per_node([$c], null))), "\n";
echo "isLocked a, b, c: ", json_encode([$rl->isLocked($a), $rl->isLocked($b), $rl->isLocked($c)]), "\n";
echo "isHeld: ", var_export($l->isHeld(), true), "\n";
echo "extend: ", var_export($l->extend(30000), true), ", ttl $l->ttl, remaining > 29000: ",
    $l->remaining() > 29000 ? 'yes' : 'no', "\n";
// (extend() returns at a quorum: the last node's PEXPIRE may still be on its way, bounded wait)
for ($i = 0; $i < 50 && min(array_merge(rl_pttls($a), rl_pttls($b))) <= 29000; $i++) usleep(20000);
$p = array_merge(rl_pttls($a), rl_pttls($b));
echo "both TTLs extended: ", min($p) > 29000 ? 'yes' : json_encode($p), "\n";
echo "release: ", var_export($l->release(), true), "\n";
echo "nothing left: ", json_encode(array_values(multi_per_node([$a, $b], null))), "\n";
// a single resource: an ordinary lock
$s = $rl->lockAll([$c], 1000);
echo "one resource: ", $s->resources === [$c] ? 'yes' : 'no', ", plain key: ", rl_count_value($c, $s->token), "\n";
$s->release();
// lock() has the same new properties
$o = $rl->lock($a, 1000);
echo "lock(): resources [\$resource]: ", $o->resources === [$a] ? 'yes' : 'no', ", mode $o->mode\n";
$o->release();
// fencing: one fence, larger than the last
$f1 = $rl->lock($c, 1000, ['fencing' => true]);
$f2 = $rl->lockAll([$a, $b], 1000, ['fencing' => true]);
echo "fence grows: ", $f2->fence > $f1->fence ? 'yes' : "no ($f1->fence, $f2->fence)", "\n";
$f1->release(); $f2->release();
// synchronized-style use: released at request end with auto_release
$rl->lockAll([$a, $b], 10000);
echo "releaseAll: ", RedLock::releaseAll(), ", left: ", json_encode(array_values(multi_per_node([$a, $b], null))), "\n";
rl_del($a, $b, $c);
?>
--EXPECT--
acquired: yes, resource is the first: yes, resources: as given, mode: exclusive
both keys ours on every node: [2,2,2,2,2]
TTLs set: yes
valid: yes
lock(b): NULL
lockAll([c, b]): NULL
lockAll([b, a]): NULL
c set nowhere: [0,0,0,0,0]
isLocked a, b, c: [true,true,false]
isHeld: true
extend: true, ttl 30000, remaining > 29000: yes
both TTLs extended: yes
release: true
nothing left: [0,0,0,0,0]
one resource: yes, plain key: 5
lock(): resources [$resource]: yes, mode exclusive
fence grows: yes
releaseAll: 1, left: [0,0,0,0,0]
