--TEST--
lockAll: a node counts only if it set every key; a node where one key is taken sets none of them; release leaves foreign keys alone
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/multi.inc';
$rl = rl_new(['retry_count' => 0]);
// b held by a foreign owner on 3 nodes: no node of those sets a, and no quorum is left
$a = rl_name('pn_a'); $b = rl_name('pn_b');
rl_set_on([1, 2, 3], $b, 'foreign-owner');
echo "b taken on 3: ", var_export($rl->lockAll([$a, $b], 10000), true), ", a set on: ",
    json_encode(array_values(multi_per_node([$a], null))), "\n";
rl_del($a, $b);
// b taken on 2: the other 3 nodes set both keys, the 2 set neither
rl_set_on([4, 5], $b, 'foreign-owner');
$l = $rl->lockAll([$a, $b], 10000);
echo "b taken on 2: ", $l ? 'acquired' : 'null', ", ours per node: ", json_encode(array_values(multi_per_node([$a, $b], $l?->token ?? ''))),
    ", a on: ", json_encode(array_values(multi_per_node([$a], null))), "\n";
echo "isHeld: ", var_export($l->isHeld(), true), "\n";
// one of our keys lost on 3 nodes (expired, force-released): no quorum holds every key
$r = rl_redis(rl_nodes()[0]); $r->cmd('DEL', $a); $r->close();
$r = rl_redis(rl_nodes()[1]); $r->cmd('DEL', $b); $r->close();
$r = rl_redis(rl_nodes()[2]); $r->cmd('DEL', $a); $r->close();
echo "isHeld after 3 partial losses: ", var_export($l->isHeld(), true), "\n";
echo "extend: ", var_export($l->extend(10000), true), ", valid: ", var_export($l->isValid(), true), "\n";
echo "release: ", var_export($l->release(), true), "\n";
echo "foreign b kept on 4, 5: ", json_encode(array_values(rl_values($b))), "\n";
echo "ours gone: ", json_encode(array_values(multi_per_node([$a], null))), "\n";
rl_del($a, $b);
// a caller-chosen token: a second lockAll with it is a conflict, and its cleanup keeps the first's keys
$t = bin2hex(random_bytes(12));
$l1 = $rl->lockAll([$a, $b], 10000, ['token' => $t]);
$l2 = $rl->lockAll([$a, $b], 10000, ['token' => $t]);
echo "same token twice: ", $l1 ? 'acquired' : 'null', ', ', $l2 ? 'acquired' : 'null',
    ", first kept: ", json_encode(array_values(multi_per_node([$a, $b], $t))), "\n";
echo "release: ", var_export($l1->release(), true), "\n";
rl_del($a, $b, "$a\0a");
?>
--EXPECT--
b taken on 3: NULL, a set on: [0,0,0,0,0]
b taken on 2: acquired, ours per node: [2,2,2,0,0], a on: [1,1,1,0,0]
isHeld: true
isHeld after 3 partial losses: false
extend: false, valid: false
release: false
foreign b kept on 4, 5: [null,null,null,"foreign-owner","foreign-owner"]
ours gone: [0,0,0,0,0]
same token twice: acquired, null, first kept: [2,2,2,2,2]
release: true
