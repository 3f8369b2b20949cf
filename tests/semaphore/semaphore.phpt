--TEST--
semaphore: at most $limit permits, each a quorum on its own slot; one round trip when a permit is free; weight; its keys are its own; release/extend/isHeld; another limit is a RedLock\Exception naming both; bad input
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../lock_all/multi.inc';
$r = rl_name('sem');
$slot = fn(int $i) => "$r\0p$i";
$rl = rl_new(['retry_count' => 0]);
$p = [];
for ($i = 0; $i < 3; $i++) $p[] = $rl->semaphore($r, 3, 10000);
echo "3 of 3: ", implode(',', array_map(fn($l) => $l ? $l->mode : 'null', $p)), "\n";
echo "4th: ", var_export($rl->semaphore($r, 3, 10000), true), "\n";
// each permit holds one slot on every node (a quorum at least), no slot twice
$owners = [];
foreach (range(0, 2) as $s) {
    $v = array_values(array_filter(rl_values($slot($s)), 'is_string'));
    $owners[] = count(array_unique($v)) === 1 && count($v) >= 3 ? array_search($v[0], array_map(fn($l) => $l->token, $p)) : 'mixed';
}
sort($owners);
echo "slots held by permits: ", json_encode($owners), "\n";
echo "resource ", $p[0]->resource === $r ? 'as given' : 'other', ", resources ", json_encode($p[0]->resources === [$r]), "\n";
echo "its keys are its own: lock() ", $rl->lock($r, 1000)?->release() ? 'taken' : 'null', ", isLocked ",
    var_export($rl->isLocked($r), true), "\n";
echo "isHeld ", var_export($p[1]->isHeld(), true), ", extend ", var_export($p[1]->extend(20000), true),
    ", remaining > 19000 ", var_export($p[1]->remaining() > 19000, true), "\n";
rl_expect('another limit', fn() => $rl->semaphore($r, 5, 1000), 'RedLock\Exception', 'limit of 3', 'not 5', $r);
echo "release ", var_export($p[1]->release(), true), ", again ", var_export($p[1]->release(), true), "\n";
// one round trip when a permit is free: one script call per node (INFO commandstats, after
// whatever earlier calls left queued has landed)
$calls = fn() => array_map(fn($i) => rl_cmd_calls($i, 'evalsha') + rl_cmd_calls($i, 'eval'), range(1, 5));
usleep((int) rl_slack(100000));
$before = $calls();
$n = $rl->semaphore($r, 3, 10000);
usleep((int) rl_slack(100000));
$d = array_map(fn($a, $b) => $a - $b, $calls(), $before);
// (each node runs the permit's script once; the nodes not waited for, at most n - quorum = 2,
// also get its cleanup, not waited for either: a second attempt would show as 2 on every node)
$twice = count(array_filter($d, fn($v) => $v === 2));
echo "a free permit: ", $n ? 'taken' : 'null', ", one attempt: ",
    min($d) === 1 && max($d) <= 2 && $twice <= 2 ? 'yes' : json_encode($d), "\n";
$n->release(); $p[0]->release(); $p[2]->release();
// weight: all or none
$w = $rl->semaphore($r, 3, 10000, ['weight' => 2]);
$w2 = $rl->semaphore($r, 3, 10000, ['weight' => 2]);
$one = $rl->semaphore($r, 3, 10000);
echo "weight 2, then 2: ", $w ? 'taken' : 'null', ', ', $w2 ? 'taken' : 'null', ", then 1: ", $one ? 'taken' : 'null', "\n";
$c = array_map(fn($s) => count(array_filter(rl_values($slot($s)), fn($v) => $v === $w->token)), range(0, 2));
sort($c);
echo "weight 2: two slots on every node: ", json_encode($c), "\n";
$w->release(); $one->release();
echo "all released: ", json_encode(array_values(array_map(fn($s) => count(array_filter(rl_values($slot($s)), 'is_string')), range(0, 2)))), "\n";
// when every permit is released, another limit may be used
$a = $rl->semaphore($r, 5, 1000);
echo "limit 5 once free: ", $a ? 'taken' : 'null', "\n";
$a->release();
// a permit taken by a lower slot than a free one left by a dead holder? (the slots are ordinary locks: by their TTL)
$d = $rl->semaphore($r, 1, 300, ['auto_release' => false]);
echo "limit 1: ", $d ? 'taken' : 'null', ", second: ", var_export($rl->semaphore($r, 1, 300), true), "\n";
usleep(400000);
echo "after its ttl: ", ($x = $rl->semaphore($r, 1, 300)) ? 'taken' : 'null', "\n";
$x->release();
// fencing, wait options are lock()'s
$f = $rl->semaphore($r, 2, 1000, ['fencing' => true]);
echo "fence: ", is_int($f->fence) && $f->fence > 0 ? 'yes' : 'no', "\n";
$f->release();
// the pool-wide metrics count permits under their own mode
preg_match('/^redlock_acquisitions_total\{mode="permit"\} (\d+)/m', RedLock::metrics(), $m);
echo "metrics: permits counted: ", ((int) ($m[1] ?? 0)) >= 10 ? 'yes' : json_encode($m), "\n";
// a permit's release counts under its resource, not a slot key (resource "\0p" i: a label
// "name%00p0" per slot); a name without ':' is its own label
$nc = 'semnc' . bin2hex(random_bytes(4));
$rl->semaphore($nc, 2, 1000)->release();
$text = RedLock::metrics();
echo "metrics: releases under the resource: ", str_contains($text, "resource=\"$nc\"") && !str_contains($text, "$nc%00") ? 'yes' : 'no', "\n";
rl_expect('limit 0', fn() => $rl->semaphore($r, 0, 1000), 'ValueError', '$limit', '1 and 1024');
rl_expect('limit 1025', fn() => $rl->semaphore($r, 1025, 1000), 'ValueError', '$limit');
rl_expect('weight 0', fn() => $rl->semaphore($r, 3, 1000, ['weight' => 0]), 'ValueError', 'weight');
rl_expect('weight > limit', fn() => $rl->semaphore($r, 3, 1000, ['weight' => 4]), 'ValueError', 'weight');
rl_expect('weight type', fn() => $rl->semaphore($r, 3, 1000, ['weight' => '1']), 'TypeError', 'weight');
rl_expect('token', fn() => $rl->semaphore($r, 3, 1000, ['token' => str_repeat('t', 20)]), 'ValueError', 'token');
rl_expect('ttl', fn() => $rl->semaphore($r, 3, 0), 'ValueError', '$ttl');
rl_expect('resource', fn() => $rl->semaphore('', 3, 10), 'ValueError', '$resource');
rl_expect('unknown option', fn() => $rl->semaphore($r, 3, 10, ['nope' => 1]), 'ValueError', 'nope');
rl_del("$r\0pL", ...array_map($slot, range(0, 4)));
rl_del("$nc\0pL", "$nc\0p0", "$nc\0p1");
?>
--EXPECT--
3 of 3: permit,permit,permit
4th: NULL
slots held by permits: [0,1,2]
resource as given, resources true
its keys are its own: lock() taken, isLocked false
isHeld true, extend true, remaining > 19000 true
another limit: RedLock\Exception ok
release true, again false
a free permit: taken, one attempt: yes
weight 2, then 2: taken, null, then 1: taken
weight 2: two slots on every node: [0,5,5]
all released: [0,0,0]
limit 5 once free: taken
limit 1: taken, second: NULL
after its ttl: taken
fence: yes
metrics: permits counted: yes
metrics: releases under the resource: yes
limit 0: ValueError ok
limit 1025: ValueError ok
weight 0: ValueError ok
weight > limit: ValueError ok
weight type: TypeError ok
token: ValueError ok
ttl: ValueError ok
resource: ValueError ok
unknown option: ValueError ok
