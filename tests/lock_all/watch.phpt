--TEST--
lockAll with auto_extend keeps every key alive past its ttl; on_lost 'throw' fires when the validity of a lockAll lock ends while held; restore() with 'resources' releases them all
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/multi.inc';
$a = rl_name('wd_a'); $b = rl_name('wd_b');
$rl = rl_new(['retry_count' => 0]);
// a ttl of 600 ms, held for 3 of them: only the watchdog's extensions keep it
$l = $rl->lockAll([$a, $b], 600, ['auto_extend' => true]);
usleep(1800000);
echo "auto_extend after 3 ttls: held ", var_export($l->isHeld(), true), ", valid ", var_export($l->isValid(), true),
    ", keys ours: ", json_encode(array_values(multi_per_node([$a, $b], $l->token))), "\n";
echo "release: ", var_export($l->release(), true), ", left: ", json_encode(array_values(multi_per_node([$a, $b], null))), "\n";
// on_lost: the validity ends while held
$l = $rl->lockAll([$a, $b], 300, ['on_lost' => 'throw']);
$t = hrtime(true);
try {
    while (rl_ms($t) < rl_slack(5000)) { usleep(1000); }
    echo "on_lost: no exception\n";
} catch (RedLock\LockLostException $e) {
    echo "on_lost: thrown after the validity: ", rl_ms($t) >= 250 ? 'yes' : 'no', ", names the resource: ",
        str_contains($e->getMessage(), $a) ? 'yes' : $e->getMessage(), "\n";
}
rl_del($a, $b);
// restore() of a lockAll lock taken elsewhere (a token and its resources)
$l = $rl->lockAll([$a, $b], 10000, ['auto_release' => false]);
$r = $rl->restore($b, $l->token, ['resources' => [$a, $b]]);
echo "restored: resource is b: ", $r->resource === $b ? 'yes' : 'no', ", isHeld ",
    var_export($r->isHeld(), true), ", valid ", var_export($r->isValid(), true), "\n";
echo "restored extend: ", var_export($r->extend(5000), true), ", release: ", var_export($r->release(), true),
    ", left: ", json_encode(array_values(multi_per_node([$a, $b], null))), "\n";
echo "a restore of one of them only: ", var_export($rl->restore($a, $l->token)->isHeld(), true), "\n";
rl_del($a, $b);
?>
--EXPECT--
auto_extend after 3 ttls: held true, valid true, keys ours: [2,2,2,2,2]
release: true, left: [0,0,0,0,0]
on_lost: thrown after the validity: yes, names the resource: yes
restored: resource is b: yes, isHeld true, valid false
restored extend: true, release: true, left: [0,0,0,0,0]
a restore of one of them only: false
