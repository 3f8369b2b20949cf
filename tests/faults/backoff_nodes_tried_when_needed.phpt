--TEST--
Back-off never fails a call the other nodes cannot decide: with two nodes in back-off (but back now) and a third node dead but out of its back-off (so a quorum seemed reachable without the two), lock() tries the two within the same call and acquires, instead of counting them as down
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// Nodes 4 and 5 refuse our password at first (their requirepass is another
// one): each call that tries them fails their AUTH and doubles their back-off,
// to its cap (2 s). Setting our password on them brings them back at once.
$pw = 'pw-' . bin2hex(random_bytes(6));
$other = 'other-' . bin2hex(random_bytes(6));
$nodes = rl_nodes();
$uris = $nodes;
foreach ([3, 4] as $k) {
    $uris[$k] = "redis://:$pw@" . $nodes[$k];
}
$admin = function (int $k, string ...$cmd) use ($nodes, $pw, $other) {
    $r = rl_redis($nodes[$k]);
    $r->cmd('AUTH', $pw);      // whichever of the two it has (an error otherwise)
    $r->cmd('AUTH', $other);
    return $r->cmd(...$cmd);
};
$rl = new RedLock($uris, ['retry_count' => 0, 'connect_timeout' => 100, 'timeout' => 100]);
$res = rl_name('backoff_tried');
$l = $rl->lock($res, 5000);
echo "warm-up: ", var_export($l instanceof RedLock\Lock && $l->release(), true), "\n";
foreach ([3, 4] as $k) {
    $admin($k, 'CONFIG', 'SET', 'requirepass', $other);
    $admin($k, 'CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes'); // our connections: AUTH again
}
foreach ([100, 200, 400, 800, 1600, 2000] as $backoff) {
    if ($backoff === 2000) {
        // node 3 dies too: this call finds it gone; its own back-off (100 ms)
        // is over before the last call
        rl_node_ctl('kill', 3);
    }
    try {
        $rl->lock($res, 5000)?->release();
    } catch (RedLock\QuorumException $e) {
    }
    usleep(($backoff < 2000 ? $backoff + 60 : 200) * 1000);
}
$why = $rl->stats()['nodes'][$nodes[3]]['last_error'] ?? '';
echo "node 4 refused our AUTH: ", var_export(str_contains($why, 'AUTH'), true), "\n";
foreach ([3, 4] as $k) {
    $admin($k, 'CONFIG', 'SET', 'requirepass', $pw);
}
try {
    $l = $rl->lock($res, 5000);
    echo "lock(): ", $l instanceof RedLock\Lock ? 'acquired' : 'null', "\n";
    echo "nodes 4 and 5 hold it: ", var_export(is_string($admin(3, 'GET', $res)) && is_string($admin(4, 'GET', $res)), true), "\n";
    $l?->release();
} catch (RedLock\QuorumException $e) {
    echo "lock(): ", $e->getMessage(), "\n";
}
foreach ([3, 4] as $k) {
    $admin($k, 'CONFIG', 'SET', 'requirepass', '');
}
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
foreach (array_slice(rl_nodes(), 3, 2) as $addr) {
    // the test's passwords are gone with it: a restart clears them
    try {
        $r = rl_redis($addr);
        if ($r->cmd('PING') instanceof RlRedisError) rl_node_ctl('restart', array_search($addr, rl_nodes()) + 1);
    } catch (Throwable $e) {}
}
?>
--EXPECT--
warm-up: true
node 4 refused our AUTH: true
lock(): acquired
nodes 4 and 5 hold it: true
