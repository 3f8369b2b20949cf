--TEST--
TCP and unix socket of one server in one node list: the first call that connects throws RedLock\Exception (not a QuorumException) naming the node; no lock is returned
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (rl_socket(1) === null) die('skip node 1 has no unix socket');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$tcp = rl_nodes()[0];
$sock = 'unix:' . rl_socket(1);
$res = rl_name('same_server_tcp_socket');
$rl = new RedLock([$tcp, 'unix://' . rl_socket(1), rl_nodes()[1]], ['retry_count' => 0]);
echo "constructed\n";
$show = function (string $what, callable $fn) use ($tcp, $sock) {
    try {
        $r = $fn();
        echo "$what: no exception, returned ", get_debug_type($r), "\n";
    } catch (Throwable $e) {
        $m = $e->getMessage();
        echo "$what: ", get_class($e), ", names the node: ",
            var_export(str_contains($m, $tcp) || str_contains($m, $sock), true),
            ", says same server: ", var_export(str_contains($m, 'same Redis server'), true), "\n";
    }
};
$show('lock', fn() => $rl->lock($res, 5000));
$show('isLocked', fn() => $rl->isLocked($res));
$called = false;
$show('synchronized', function () use ($rl, $res, &$called) {
    return $rl->synchronized($res, 5000, function () use (&$called) { $called = true; });
});
echo "fn called: ", var_export($called, true), "\n";
rl_del($res);
?>
--EXPECT--
constructed
lock: RedLock\Exception, names the node: true, says same server: true
isLocked: RedLock\Exception, names the node: true, says same server: true
synchronized: RedLock\Exception, names the node: true, says same server: true
fn called: false
