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

$t = hrtime(true);   // before the first refused connect: the back-off counts from within this call
$l = $rl->lock($res, 5000);
$l->release();
$first = $rl->stats()['nodes'][$name5];

// During the back-off the node is not even tried: each call's failure for it
// says back-off. The back-off is 100 ms after the first refused connect and
// doubles (docs/api.md "Slow, hung and restarted nodes": back-off 100 ms doubling to 2 s), so in S ms a node
// refused at the start may be tried again at most 1 + log2(S / 100 + 1)
// times, however fast the calls are: the rest of the 40 calls must skip it.
$tried = $skippedCalls = $uncounted = 0;
$tick = function () use ($rl, $name5, &$tried, &$skippedCalls, &$uncounted) {
    static $errors = null;
    $n = $rl->stats()['nodes'][$name5];
    if ($errors !== null && $n['errors'] !== $errors + 1) $uncounted++;
    $errors = $n['errors'];
    str_contains((string) $n['last_error'], 'back-off') ? $skippedCalls++ : $tried++;
};
$tick();
$tried = $skippedCalls = 0;
for ($i = 0; $i < 20; $i++) {
    $l = $rl->lock("$res:$i", 5000);
    $tick();
    $l->release();
    $tick();
}
$ms = rl_ms($t);
$after = $rl->stats()['nodes'][$name5];
$maxTried = 1 + (int) floor(log($ms / 100 + 1, 2));
echo "first failure: ", var_export($first['errors'] >= 1 && $first['last_error'] !== null, true), "\n";
echo "each of the 40 calls counted one error for node 5: ", var_export($uncounted === 0, true), "\n";
echo "tried again at most as often as the back-off allows: ", $tried <= $maxTried ? 'yes' : "no ($tried of 40 calls in $ms ms, at most $maxTried)", "\n";
echo "the other calls said back-off: ", var_export($skippedCalls === 40 - $tried, true), "\n";
echo "errors kept counting: ", var_export($after['errors'] > $first['errors'], true), "\n";
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
each of the 40 calls counted one error for node 5: true
tried again at most as often as the back-off allows: yes
the other calls said back-off: true
errors kept counting: true
node 5 holds our key again: true
