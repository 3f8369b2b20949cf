--TEST--
semaphore: a permit whose slots are far apart (an answer of 129 bytes or more as a slot list) is taken, restored and released; nothing is left on the nodes
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../lock_all/multi.inc';
// every odd slot of 200 held by another owner on every node: the free slots
// are the even ones, so weight 50 is 50 slots with gaps ("0,2,4,...,98" is
// 140 bytes as ranges, more than a token's buffer)
$r = rl_name('semlong');
$slot = fn(int $i) => "$r\0p$i";
$nodes = rl_nodes();
$keys = array_map($slot, range(0, 199));
$foreign = 'foreign-owner-0123456789';
foreach ($nodes as $addr) {
    $c = rl_redis($addr);
    for ($s = 1; $s < 200; $s += 2) $c->cmd('SET', $slot($s), $foreign, 'PX', 60000);
    $c->close();
}
// what is on the nodes besides the foreign slots: [value => nodes x slots]
$others = function () use ($nodes, $keys, $foreign) {
    usleep((int) rl_slack(100000)); // (the trims and releases not waited for land)
    $n = [];
    foreach ($nodes as $addr) {
        $c = rl_redis($addr);
        foreach ($c->cmd('MGET', ...$keys) as $v) if (is_string($v) && $v !== $foreign) $n[$v] = ($n[$v] ?? 0) + 1;
        $c->close();
    }
    return $n;
};
$rl = rl_new(['retry_count' => 0]);
$p = $rl->semaphore($r, 200, 10000, ['weight' => 50]);
echo "weight 50 of 200, 100 free: ", $p ? 'taken' : 'null', "\n";
if ($p) {
    usleep((int) rl_slack(100000));
    $per = [];
    foreach ($nodes as $addr) {
        $c = rl_redis($addr);
        $mine = array_keys(array_filter($c->cmd('MGET', ...$keys), fn($v) => $v === $p->token));
        $c->close();
        $per[] = count($mine) . (array_filter($mine, fn($s) => $s % 2) ? ' (odd ones)' : '');
    }
    echo "its slots on each node: ", json_encode($per), "\n";
    echo "isHeld ", var_export($p->isHeld(), true), ", extend ", var_export($p->extend(20000), true),
        ", release ", var_export($p->release(), true), "\n";
}
echo "left on the nodes: ", json_encode(array_values($others())), "\n";

// restore() of a held weight-60 permit (even slots 0..118, held on every node)
$tok = 'restore-token-' . bin2hex(random_bytes(8));
foreach ($nodes as $addr) {
    $c = rl_redis($addr);
    for ($s = 0; $s < 120; $s += 2) $c->cmd('SET', $slot($s), $tok, 'PX', 60000);
    $c->close();
}
try {
    $q = $rl->restore($r, $tok, ['mode' => 'permit', 'limit' => 200, 'weight' => 60]);
    echo "restore weight 60: ", $q->mode, ", isHeld ", var_export($q->isHeld(), true), ", release ",
        var_export($q->release(), true), "\n";
} catch (Throwable $e) {
    echo "restore weight 60: ", get_class($e), ": ", $e->getMessage(), "\n";
}
echo "left on the nodes: ", json_encode(array_values($others())), "\n";
rl_del(...array_merge($keys, ["$r\0pL"]));
?>
--EXPECT--
weight 50 of 200, 100 free: taken
its slots on each node: ["50","50","50","50","50"]
isHeld true, extend true, release true
left on the nodes: []
restore weight 60: permit, isHeld true, release true
left on the nodes: []
