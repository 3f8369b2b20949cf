--TEST--
restore() of a permit ('mode' => 'permit', 'limit', 'weight'): another process finds its slots on the nodes and releases, extends and checks it; a token that holds no permit, or another weight, is a LockLostException; bad options are a ValueError naming the field
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../lock_all/multi.inc';
$r = rl_name('sem_restore');
$rl = rl_new(['retry_count' => 0]);
$p = $rl->semaphore($r, 3, 10000, ['weight' => 2]);
echo "permit of weight 2: ", $p ? 'yes' : 'no', ", one left: ", ($q = $rl->semaphore($r, 3, 10000)) ? 'yes' : 'no',
    ", then none: ", var_export($rl->semaphore($r, 3, 10000), true), "\n";
$q->release();
// another process restores it by token
[$rc, $out] = rl_php_child('
    $rl = new RedLock(rl_nodes(), ["retry_count" => 0]);
    $l = $rl->restore(' . var_export($r, true) . ', ' . var_export($p->token, true) . ', ["mode" => "permit", "limit" => 3, "weight" => 2]);
    echo "restored: mode ", $l->mode, ", resources ", json_encode($l->resources === [' . var_export($r, true) . ']), ", isValid before extend: ", var_export($l->isValid(), true), "\n";
    echo "isHeld: ", var_export($l->isHeld(), true), ", extend: ", var_export($l->extend(20000), true), ", valid then: ", var_export($l->isValid(), true), "\n";
    echo "release: ", var_export($l->release(), true), "\n";
');
echo trim($out), "\n";
echo "the original permit held: ", var_export($p->isHeld(), true), ", all 3 free: ", ($w = $rl->semaphore($r, 3, 10000, ['weight' => 3])) ? 'yes' : 'no', "\n";
$w->release();
$p2 = $rl->semaphore($r, 3, 10000);
rl_expect('other weight', fn() => $rl->restore($r, $p2->token, ['mode' => 'permit', 'limit' => 3, 'weight' => 2]), 'RedLock\LockLostException', 'holds 1 permit(s)');
rl_expect('unknown token', fn() => $rl->restore($r, str_repeat('b', 40), ['mode' => 'permit', 'limit' => 3]), 'RedLock\LockLostException', 'holds 0 permit(s)');
$ok = $rl->restore($r, $p2->token, ['mode' => 'permit', 'limit' => 3]);
echo "without weight: ", $ok->mode, ", release ", var_export($ok->release(), true), "\n";
rl_expect('no limit', fn() => $rl->restore($r, $p2->token, ['mode' => 'permit']), 'ValueError', '"limit" is required');
rl_expect('limit alone', fn() => $rl->restore($r, $p2->token, ['limit' => 3]), 'ValueError', "go with 'mode' => 'permit'");
rl_expect('limit range', fn() => $rl->restore($r, $p2->token, ['mode' => 'permit', 'limit' => 0]), 'ValueError', '"limit" must be between 1 and 1024');
rl_expect('weight type', fn() => $rl->restore($r, $p2->token, ['mode' => 'permit', 'limit' => 3, 'weight' => '2']), 'TypeError', '"weight" must be of type int');
rl_expect('weight > limit', fn() => $rl->restore($r, $p2->token, ['mode' => 'permit', 'limit' => 3, 'weight' => 4]), 'ValueError', '"weight" must be between 1 and the limit');
rl_expect('resources', fn() => $rl->restore($r, $p2->token, ['mode' => 'permit', 'limit' => 3, 'resources' => [$r]]), 'ValueError', '"resources" cannot be given');
?>
--EXPECT--
permit of weight 2: yes, one left: yes, then none: NULL
restored: mode permit, resources true, isValid before extend: false
isHeld: true, extend: true, valid then: true
release: true
the original permit held: false, all 3 free: yes
other weight: RedLock\LockLostException ok
unknown token: RedLock\LockLostException ok
without weight: permit, release true
no limit: ValueError ok
limit alone: ValueError ok
limit range: ValueError ok
weight type: TypeError ok
weight > limit: ValueError ok
resources: ValueError ok
