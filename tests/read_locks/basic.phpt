--TEST--
Read locks: any number of shared holders at once, never with an exclusive one; the last reader's release frees the key; isLocked, isHeld, extend, restore(mode shared) and lockAll(shared) on the nodes
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/shared.inc';
$r = rl_name('sh_basic');
$rl = rl_new(['retry_count' => 0]);
$a = $rl->lock($r, 5000, ['shared' => true]);
$b = $rl->lock($r, 5000, ['shared' => true]);
echo "two readers: ", $a && $b ? 'yes' : 'no', ", mode ", $a->mode, ", resources ", json_encode($a->resources === [$r]), "\n";
echo "the key on each node: ", json_encode(array_map(fn($v) => $v === "\0s" ? 'readers' : $v, rl_values($r))), "\n";
echo "readers per node: ", json_encode(array_map('count', sh_readers($r))), "\n";
echo "exclusive while read: ", var_export($rl->lock($r, 1000), true), "\n";
echo "isLocked: ", var_export($rl->isLocked($r), true), ", isHeld: ", var_export($a->isHeld() && $b->isHeld(), true), "\n";
echo "release a: ", var_export($a->release(), true), ", a held: ", var_export($a->isHeld(), true), ", b held: ", var_export($b->isHeld(), true), "\n";
echo "exclusive while b reads: ", var_export($rl->lock($r, 1000), true), "\n";
echo "extend b: ", var_export($b->extend(8000), true), ", pttl follows the longest reader: ",
    min(rl_pttls($r)) > 5000 ? 'yes' : json_encode(rl_pttls($r)), "\n";
echo "release b: ", var_export($b->release(), true), ", key gone: ", json_encode(array_values(array_unique(rl_values($r)))), "\n";
$x = $rl->lock($r, 5000);
echo "exclusive after: ", $x ? 'yes' : 'no', ", reader while exclusive: ", var_export($rl->lock($r, 1000, ['shared' => true]), true), "\n";
echo "a reader's release() of the exclusive lock's token: ", var_export($rl->restore($r, $x->token, ['mode' => 'shared'])->release(), true),
    ", exclusive still held: ", var_export($x->isHeld(), true), "\n";
$x->release();

// restore a read lock elsewhere (Symfony's stores do)
$c = $rl->lock($r, 5000, ['shared' => true]);
$s = $rl->restore($r, $c->token, ['mode' => 'shared']);
echo "restored: mode ", $s->mode, ", held ", var_export($s->isHeld(), true), ", extend ", var_export($s->extend(4000), true),
    ", release ", var_export($s->release(), true), ", original held ", var_export($c->isHeld(), true), "\n";
echo "restored as exclusive does not release a reader: ", var_export($rl->restore($r, $c->token)->release(), true), "\n";

// lockAll shared: read locks on all
$m1 = rl_name('sh_m1'); $m2 = rl_name('sh_m2'); $m3 = rl_name('sh_m3');
$la = $rl->lockAll([$m1, $m2], 5000, ['shared' => true]);
$lb = $rl->lockAll([$m2, $m3], 5000, ['shared' => true]);
echo "lockAll shared: ", $la && $lb ? 'both' : 'no', ", mode ", $la->mode, ", exclusive m2: ", var_export($rl->lock($m2, 1000), true),
    ", lockAll exclusive [m1, m3]: ", var_export($rl->lockAll([$m1, $m3], 1000), true), "\n";
$xm = $rl->lock(rl_name('free'), 1000);
$la->release();
echo "after la's release, exclusive m1: ", ($l1 = $rl->lock($m1, 1000)) ? 'yes' : 'no', ", m2 (lb reads): ", var_export($rl->lock($m2, 1000), true), "\n";
$l1->release(); $lb->release(); $xm->release();
echo "all free: ", ($all = $rl->lockAll([$m1, $m2, $m3], 1000)) ? 'yes' : 'no', "\n";
$all->release();
$st = $rl->stats();
echo "stats acquired: ", $st['acquired'], "\n";
sh_del($r, $m1, $m2, $m3);
?>
--EXPECT--
two readers: yes, mode shared, resources true
the key on each node: {"1":"readers","2":"readers","3":"readers","4":"readers","5":"readers"}
readers per node: {"1":2,"2":2,"3":2,"4":2,"5":2}
exclusive while read: NULL
isLocked: true, isHeld: true
release a: true, a held: false, b held: true
exclusive while b reads: NULL
extend b: true, pttl follows the longest reader: yes
release b: true, key gone: [null]
exclusive after: yes, reader while exclusive: NULL
a reader's release() of the exclusive lock's token: false, exclusive still held: true
restored: mode shared, held true, extend true, release true, original held false
restored as exclusive does not release a reader: false
lockAll shared: both, mode shared, exclusive m2: NULL, lockAll exclusive [m1, m3]: NULL
after la's release, exclusive m1: yes, m2 (lb reads): NULL
all free: yes
stats acquired: 9
