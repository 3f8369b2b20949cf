--TEST--
semaphore: a permit of weight 2 is two slots that one quorum of nodes holds together; slots held on different quorums are refused (isHeld, extend and release agree with every grant)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../lock_all/multi.inc';
// limit 3, weight 2; another owner holds slot 2 on nodes $a, slot 1 on $b,
// slot 0 on $c: each node has two free slots and sets those, whatever the start
$try = function (array $a, array $b, array $c) {
    $r = rl_name('semsame');
    $keys = array_map(fn($i) => "$r\0p$i", range(0, 2));
    rl_set_on($a, $keys[2], 'other');
    rl_set_on($b, $keys[1], 'other');
    rl_set_on($c, $keys[0], 'other');
    $rl = rl_new(['retry_count' => 0]);
    $p = $rl->semaphore($r, 3, 10000, ['weight' => 2]);
    if ($p) {
        echo "  taken: isHeld ", var_export($p->isHeld(), true), ", extend ", var_export($p->extend(10000), true),
            ", release ", var_export($p->release(), true), "\n";
    } else {
        echo "  null\n";
    }
    // nothing of ours left: every slot is the other owner's or free
    $ours = 0;
    foreach ($keys as $k) $ours += count(array_filter(rl_values($k), fn($v) => is_string($v) && $v !== 'other'));
    echo "  slots of ours left: $ours\n";
    rl_del(...array_merge($keys, ["$r\0pL"]));
};
// nodes 1, 2 set {0, 1}, nodes 3, 4 {0, 2}, node 5 {1, 2}: slot 0 has 4 nodes, slot 1
// three, but no three nodes hold both
echo "no quorum holds two slots together:\n";
$try([1, 2], [3, 4], [5]);
// nodes 1, 2, 3 set {0, 1}, nodes 4, 5 {1, 2}: {0, 1} on nodes 1 to 3
echo "a quorum holds {0, 1}:\n";
$try([1, 2, 3], [], [4, 5]);
?>
--EXPECT--
no quorum holds two slots together:
  null
  slots of ours left: 0
a quorum holds {0, 1}:
  taken: isHeld true, extend true, release true
  slots of ours left: 0
