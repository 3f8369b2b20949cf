--TEST--
A password-protected node restarted empty (its requirepass set again only after the restart: our AUTH fails meanwhile) gets our keys again once its back-off (at most 2 s) is over, on the same RedLock object
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$pw = 'pw-' . bin2hex(random_bytes(6));
$nodes = rl_nodes();
$uris = $nodes;
$uris[2] = "redis://:$pw@" . $nodes[2];
$n3 = function (string ...$cmd) use ($nodes, $pw) {
    $r = rl_redis($nodes[2]);
    $r->cmd('AUTH', $pw);
    return $r->cmd(...$cmd);
};
$n3('CONFIG', 'SET', 'requirepass', $pw);
$rl = new RedLock($uris, ['retry_count' => 0]);
$res = rl_name('password_rejoins');
$l = $rl->lock($res, 5000);
echo "node 3 holds the first lock: ", var_export(is_string($n3('GET', $res)), true), "\n";
$l->release();
rl_node_ctl('kill', 3);
$rl->lock($res, 5000)?->release();
rl_node_ctl('restart', 3);
$l = $rl->lock($res, 5000);              // node 3 has no password now: our AUTH fails
echo "lock() while node 3 refuses our AUTH: ", $l ? 'acquired' : 'null', "\n";
$l?->release();
$n3('CONFIG', 'SET', 'requirepass', $pw);
$t = hrtime(true);
$rejoined = false;
while (!$rejoined && rl_ms($t) < rl_slack(2000) + 1000) {
    $l = $rl->lock($res, 5000);
    $rejoined = $l && is_string($n3('GET', $res));
    $l?->release();
    usleep(50000);
}
echo "node 3 holds our keys again within its back-off: ", var_export($rejoined, true), "\n";
$n3('CONFIG', 'SET', 'requirepass', '');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_node_ctl('restart', 3);
?>
--EXPECT--
node 3 holds the first lock: true
lock() while node 3 refuses our AUTH: acquired
node 3 holds our keys again within its back-off: true
