--TEST--
A connection that breaks after the node ran our SET but before its answer came (a proxy drops the answer and cuts the client): the SET sent again answers nil (the first one set the key), yet the failed attempt's cleanup still reaches that node, so no key of ours is left there
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
require __DIR__ . '/resetproxy.inc';
$nodes = array_slice(rl_nodes(), 0, 3);
$proxy = resetproxy_start($nodes[0], __FILE__);
$rl = new RedLock([$proxy['addr'], $nodes[1], $nodes[2]], ['retry_count' => 0, 'timeout' => 500, 'connect_timeout' => 500]);
$res = rl_name('broken_after_set');
// the connection through the proxy is open before the fault: it is reused
$warm = $rl->lock($res . ':warm', 5000);
echo "warm-up through the proxy: ", var_export($warm instanceof RedLock\Lock && $warm->release(), true), "\n";
// another owner holds node 2, node 3 is free: node 1's answer decides the
// attempt, so the call waits for it (through the reconnect)
rl_redis($nodes[1])->cmd('SET', $res, 'other-owner', 'PX', 20000);
resetproxy_arm($proxy);
$l = $rl->lock($res, 20000);
echo "lock(): ", var_export($l, true), "\n";
echo "proxy dropped the answer to our SET: ", resetproxy_dropped($proxy), "\n";
// the cleanup is queued (not awaited): bounded wait for it to land
$gone = function (string $addr) use ($res): bool {
    for ($t = 0; $t < 100; $t++) {
        if (rl_redis($addr)->cmd('GET', $res) === null) return true;
        usleep(20000);
    }
    return false;
};
echo "node 3 (answered OK) cleaned up: ", var_export($gone($nodes[2]), true), "\n";
echo "our key left on node 1: ", var_export(!$gone($nodes[0]), true), "\n";
resetproxy_stop($proxy);
rl_del($res);
?>
--EXPECT--
warm-up through the proxy: true
lock(): NULL
proxy dropped the answer to our SET: 1
node 3 (answered OK) cleaned up: true
our key left on node 1: false
