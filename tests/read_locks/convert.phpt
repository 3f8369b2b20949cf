--TEST--
Read locks, promotion and demotion (the token option): the only reader turns exclusive, an exclusive lock turns shared and other readers join; refused while another reader holds (the read lock stays); a failed attempt gives back what it changed, node by node
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/shared.inc';
$r = rl_name('sh_conv');
$rl = rl_new(['retry_count' => 0]);
$tok = bin2hex(random_bytes(16));
$s = $rl->lock($r, 5000, ['shared' => true, 'token' => $tok]);
$p = $rl->lock($r, 6000, ['token' => $tok]);
echo "promoted: ", $p ? $p->mode : 'null', ", key holds our token: ", rl_count_value($r, $tok), ", readers left: ",
    json_encode(array_values(array_map('count', sh_readers($r)))), "\n";
echo "a reader now: ", var_export($rl->lock($r, 1000, ['shared' => true]), true), ", a writer now: ", var_export($rl->lock($r, 1000), true), "\n";
$d = $rl->lock($r, 5000, ['shared' => true, 'token' => $tok]);
echo "demoted: ", $d ? $d->mode : 'null', ", another reader joins: ", ($o = $rl->lock($r, 1000, ['shared' => true])) ? 'yes' : 'no', "\n";
echo "promotion with 2 readers: ", var_export($rl->lock($r, 5000, ['token' => $tok]), true), ", still read by us: ",
    var_export($d->isHeld(), true), ", by the other: ", var_export($o->isHeld(), true), "\n";
$o->release();
$d->release();
echo "released: ", var_export($rl->isLocked($r), true), "\n";

// a promotion that fails: another reader on nodes 1-3 only; nodes 4, 5 promote, then the
// cleanup gives them the read lock back (our entry, "\0s")
$s = $rl->lock($r, 5000, ['shared' => true, 'token' => $tok]);
sh_add_reader([1, 2, 3], $r, 'someone-else-reads', 5000);
echo "promotion, quorum refused: ", var_export($rl->lock($r, 5000, ['token' => $tok]), true), "\n";
echo "  nodes after its cleanup: ", json_encode(array_values(array_map(fn($v) => $v === "\0s" ? 'readers' : ($v === $tok ? 'ours' : $v), rl_values($r)))), "\n";
echo "  our read lock per node: ", json_encode(array_values(array_map(fn($t) => in_array($tok, $t, true) ? 1 : 0, sh_readers($r)))), "\n";
echo "  still held: ", var_export($s->isHeld(), true), "\n";
sh_del($r);

// a demotion that fails: nodes 1-3 hold another owner's key; nodes 4, 5 demote, then the
// cleanup gives them our exclusive key back, with its expiry
$x = $rl->lock($r, 8000, ['token' => $tok]);
rl_set_on([1, 2, 3], $r, 'another-owner', 8000);
echo "demotion, quorum refused: ", var_export($rl->lock($r, 2000, ['shared' => true, 'token' => $tok]), true), "\n";
$vals = rl_values($r);
$pt = rl_pttls($r);
echo "  nodes 4, 5: ", json_encode([$vals[4] === $tok, $vals[5] === $tok]), ", their expiry kept (> 5 s): ", json_encode([$pt[4] > 5000, $pt[5] > 5000]),
    ", no reader left: ", json_encode(array_values(array_map('count', sh_readers($r)))), "\n";
sh_del($r);
?>
--EXPECT--
promoted: exclusive, key holds our token: 5, readers left: [0,0,0,0,0]
a reader now: NULL, a writer now: NULL
demoted: shared, another reader joins: yes
promotion with 2 readers: NULL, still read by us: true, by the other: true
released: false
promotion, quorum refused: NULL
  nodes after its cleanup: ["readers","readers","readers","readers","readers"]
  our read lock per node: [1,1,1,1,1]
  still held: true
demotion, quorum refused: NULL
  nodes 4, 5: [true,true], their expiry kept (> 5 s): [true,true], no reader left: [0,0,0,0,0]
