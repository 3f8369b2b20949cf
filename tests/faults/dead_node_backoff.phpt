--TEST--
Dead node: after a refused connect it is skipped during a back-off (costs nothing, stats() says so), and used again once it is back
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('dead_backoff');
$name5 = rl_nodes()[4];
rl_node_ctl('kill', 5);

$l = $rl->lock($res, 5000);
$l->release();
$first = $rl->stats()['nodes'][$name5];

// during the back-off the node is not even tried: the reason says so, and no time is spent on it
$t = hrtime(true);
$skipped = 0;
for ($i = 0; $i < 20; $i++) {
    $l = $rl->lock("$res:$i", 5000);
    $l->release();
    $skipped += str_contains((string) $rl->stats()['nodes'][$name5]['last_error'], 'back-off');
}
$ms = rl_ms($t);
$after = $rl->stats()['nodes'][$name5];
echo "first failure: ", var_export($first['errors'] >= 1 && $first['last_error'] !== null, true), "\n";
echo "skipped calls said back-off: ", $skipped > 0 ? 'yes' : 'no', "\n";
echo "errors kept counting: ", var_export($after['errors'] > $first['errors'], true), "\n";
echo "40 calls with a dead node in ", $ms < 500 ? 'under 500 ms' : "$ms ms", "\n";

// back again: used as soon as the back-off (at most 2 s) has passed
rl_node_ctl('restart', 5);
$deadline = hrtime(true) + 4_000_000_000;
$used = false;
while (!$used && hrtime(true) < $deadline) {
    $l = $rl->lock($res, 5000);
    $used = rl_redis($name5)->get($res) === $l->token;
    $l->release();
    if (!$used) usleep(50_000);
}
echo "node 5 holds our key again: ", var_export($used, true), "\n";
rl_del($res);
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
first failure: true
skipped calls said back-off: yes
errors kept counting: true
40 calls with a dead node in under 500 ms
node 5 holds our key again: true
