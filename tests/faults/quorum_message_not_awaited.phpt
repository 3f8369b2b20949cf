--TEST--
QuorumException message: failed nodes with their reason; a healthy node whose answer was not awaited is listed apart ("not awaited"), never as a failure
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// two ports where nothing listens: refused at once
$dead = [];
for ($i = 0; $i < 2; $i++) {
    $s = stream_socket_server('tcp://127.0.0.1:0');
    $dead[] = stream_socket_get_name($s, false);
    fclose($s);
}
$healthy = rl_nodes()[0];
$res = rl_name('quorum_not_awaited');
$rl = new RedLock([$dead[0], $healthy, $dead[1]], ['retry_count' => 0, 'timeout' => 100, 'connect_timeout' => 100]);
// the healthy node holds its reply back: the two refusals decide the call first
$admin = rl_redis($healthy);
$admin->cmd('CLIENT', 'PAUSE', 300, 'WRITE');
try {
    $rl->lock($res, 5000);
    echo "no exception\n";
} catch (RedLock\QuorumException $e) {
    $m = $e->getMessage();
    [$failed, $pending] = array_pad(explode('; not awaited: ', $m, 2), 2, '');
    $refused = fn($addr) => (bool) preg_match('/' . preg_quote($addr, '/') . ' [^;]*refused/i', $failed);
    echo "failed part names both dead nodes with a reason: ", var_export($refused($dead[0]) && $refused($dead[1]), true), "\n";
    echo "healthy node not among the failures: ", var_export(!str_contains($failed, $healthy), true), "\n";
    echo "healthy node listed as not awaited: ", var_export($pending === $healthy, true), "\n";
    echo "no 'no answer yet': ", var_export(!str_contains($m, 'no answer yet'), true), "\n";
    if (!$refused($dead[0]) || !$refused($dead[1]) || $pending !== $healthy) echo "message: $m\n";
}
$admin->cmd('CLIENT', 'UNPAUSE');
usleep(50000);
echo "key left on the healthy node: ", rl_count_keys($res), "\n";
rl_del($res);
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
try { rl_redis(rl_nodes()[0])->cmd('CLIENT', 'UNPAUSE'); } catch (Throwable $e) {}
?>
--EXPECT--
failed part names both dead nodes with a reason: true
healthy node not among the failures: true
healthy node listed as not awaited: true
no 'no answer yet': true
key left on the healthy node: 0
