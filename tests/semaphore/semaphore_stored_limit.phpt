--TEST--
semaphore: the stored limit is not trusted: one node's other limit vetoes nothing, a stored limit that is no integer in 1..1024 is none, and the script never loops past 1024 slots (the node stays free for its other clients)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../lock_all/multi.inc';
$rl = rl_new(['retry_count' => 0]);
// one node holds a slot under a stored limit of 1024 (stale or forged): it
// answers that limit; the four others grant
$r = rl_name('semlim');
rl_set_on([1], "$r\0pL", '1024');
rl_set_on([1], "$r\0p0", 'other');
try {
    $p = $rl->semaphore($r, 3, 10000);
    echo "one node's limit 1024: ", $p ? 'taken' : 'null', "\n";
    $p?->release();
} catch (RedLock\Exception $e) {
    echo "one node's limit 1024: ", $e->getMessage(), "\n";
}
rl_del("$r\0pL", "$r\0p0", "$r\0p1", "$r\0p2");
// three nodes of five: enough to decide, the call names it
$r = rl_name('semlim');
rl_set_on([1, 2, 3], "$r\0pL", '7');
rl_set_on([1, 2, 3], "$r\0p0", 'other');
rl_expect('three nodes\' limit 7', fn() => $rl->semaphore($r, 3, 10000), 'RedLock\Exception', 'limit of 7', 'not 3');
rl_del("$r\0pL", "$r\0p0", "$r\0p1", "$r\0p2");

// a stored limit that is no integer in 1..1024: none (the script on node 1
// would loop over 3,000,000 slots, busy for seconds for all its clients).
// The node's own SLOWLOG gives how long each script ran there.
$n1 = rl_redis(rl_nodes()[0], 15.0);
$prev = $n1->cmd('CONFIG', 'GET', 'slowlog-log-slower-than')[1];
$n1->cmd('CONFIG', 'SET', 'slowlog-log-slower-than', '0');
try {
    foreach (['3000000', '1025', '2.5', '-1', '0', 'abc', '1024'] as $stored) {
        $r = rl_name('semlim');
        rl_set_on([1], "$r\0pL", $stored);
        $n1->cmd('SLOWLOG', 'RESET');
        $p = $rl->semaphore($r, 3, 10000);
        // node 1 ran the script (its answer may not have been awaited): while a
        // script runs it answers BUSY (bounded: 30 s)
        for ($t = hrtime(true); $n1->cmd('PING') !== 'PONG' && rl_ms($t) < 30000;) usleep(20000);
        $us = 0;
        foreach ($n1->cmd('SLOWLOG', 'GET', '100') as $e) {
            if (in_array(strtolower($e[3][0]), ['evalsha', 'eval'], true)) $us = max($us, $e[2]);
        }
        $v = rl_redis(rl_nodes()[0])->cmd('GET', "$r\0pL");
        // (the node's own time, wall clock: 1024 EXISTS take a few ms, 3,000,000 took 2 to 20 s
        // on 574973c; 500 ms leaves room for a loaded machine descheduling the node)
        printf("stored %-8s: %s, node 1's script %s, stored now %s\n", var_export($stored, true), $p ? 'taken' : 'null',
            $us < 500000 ? '< 500 ms' : sprintf('%.1f s', $us / 1e6), $v);
        $p?->release();
        rl_del("$r\0pL", "$r\0p0", "$r\0p1", "$r\0p2");
    }
} finally {
    $n1->cmd('CONFIG', 'SET', 'slowlog-log-slower-than', $prev);
}
?>
--EXPECT--
one node's limit 1024: taken
three nodes' limit 7: RedLock\Exception ok
stored '3000000': taken, node 1's script < 500 ms, stored now 3
stored '1025'  : taken, node 1's script < 500 ms, stored now 3
stored '2.5'   : taken, node 1's script < 500 ms, stored now 3
stored '-1'    : taken, node 1's script < 500 ms, stored now 3
stored '0'     : taken, node 1's script < 500 ms, stored now 3
stored 'abc'   : taken, node 1's script < 500 ms, stored now 3
stored '1024'  : taken, node 1's script < 500 ms, stored now 3
