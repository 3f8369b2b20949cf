--TEST--
Fair waiting: one node's queue counter far above the others' (9e18, a damaged or hostile node) is not believed, as the fence counter's outlier: fair waits keep their order, a wait that runs out returns null (no QuorumException), and every node's counter stays an integer (never Lua's "9e+18", which INCR refuses)
--EXTENSIONS--
redlock
pcntl
posix
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/fair.inc';
$rl = rl_new();
$res = rl_name('outlier');
$log = sys_get_temp_dir() . '/rl-fair-outlier-' . getmypid();
@unlink($log);
// the counter <prefix><key> "\0qt" of node 1 (the prefix is "" here), without expiry
$r = rl_redis(rl_nodes()[0]);
if ($r->cmd('SET', "$res\0qt", '9000000000000000000') !== 'OK') echo "SET failed\n";
$r->close();

$held = $rl->lock($res, 30000);
$pids = [];
foreach (['A', 'B'] as $i => $name) {
    $pids[] = fair_waiter($name, $res, 10000, ['wait' => (int) rl_slack(20000), 'fair' => true], $log);
    if (!fair_wait_queued($res, $i + 1)) echo "$name never queued\n";
}
// a fair wait that runs out while the key is held: null, in this process too
$other = rl_new();
try {
    $got = var_export($other->lock($res, 5000, ['wait' => 300, 'fair' => true]), true);
} catch (Throwable $e) {
    $got = get_class($e) . ': ' . $e->getMessage();
}
echo "a wait that runs out: $got\n";
foreach (['C', 'D'] as $i => $name) {
    $pids[] = fair_waiter($name, $res, 10000, ['wait' => (int) rl_slack(20000), 'fair' => true], $log);
    if (!fair_wait_queued($res, $i + 3)) echo "$name never queued\n";
}
// the tickets on the nodes: below 2^53, each written as an integer
$bad = [];
foreach (rl_nodes() as $i => $addr) {
    $r = rl_redis($addr);
    $t = $r->cmd('GET', "$res\0qt");
    if (!is_string($t) || !preg_match('/^[0-9]+$/', $t)) $bad[] = 'node ' . ($i + 1) . ' counter ' . var_export($t, true);
    foreach ($r->cmd('ZRANGE', "$res\0q", '0', '-1', 'WITHSCORES') ?: [] as $k => $v) {
        if ($k % 2 === 1 && (float) $v >= 9007199254740992.0) $bad[] = 'node ' . ($i + 1) . " ticket $v";
    }
    $r->close();
}
echo "counters and tickets: ", $bad ? implode(', ', $bad) : 'integers below 2^53', "\n";
$held->release();
if (fair_reap($pids, rl_slack(20000)) > 0) echo "waiters killed\n";
echo "order: ", implode(',', array_map(fn ($r) => $r[0] . ':' . $r[1], fair_log($log))), "\n";
echo "queued after: ", fair_queued($res), "\n";
@unlink($log);
fair_del($res);
?>
--EXPECT--
a wait that runs out: NULL
counters and tickets: integers below 2^53
order: A:got,B:got,C:got,D:got
queued after: 0
