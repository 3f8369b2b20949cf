--TEST--
TLS and fork(): the child opens its own TLS connections and never writes to the parent's sessions (no close_notify at its exit); the parent keeps its connections
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
$res = rl_name('tls_fork');
// the ids of the clients connected to each TLS node, but the probe's own
$clients = function (): array {
    $out = [];
    foreach (rl_tls_nodes() as $n) {
        $r = rl_tls_redis($n);
        $me = $r->cmd('CLIENT', 'ID');
        preg_match_all('/^id=(\d+) /m', (string) $r->cmd('CLIENT', 'LIST'), $m);
        $r->close();
        $out[$n] = array_values(array_diff(array_map('intval', $m[1]), [$me]));
        sort($out[$n]);
    }
    return $out;
};

$rl = rl_tls_new();
$l = $rl->lock($res, 10000);
echo "parent locked: ", $l ? rl_tls_count_value($res, $l->token) : 'no', "\n";
$before = $clients();
echo "one connection per node: ", json_encode(array_map('count', array_values($before))), "\n";

$file = sys_get_temp_dir() . '/rl-tls-fork-' . getmypid();
$pid = pcntl_fork();
if ($pid === 0) {
    // the inherited lock is not the child's; its own lock needs its own connections
    $out = ['release parent lock' => $l->release()];
    $c = $rl->lock("$res:child", 10000);
    $out['child lock'] = $c ? rl_tls_count_value("$res:child", $c->token) : 0;
    $out['child release'] = $c && $c->release();
    file_put_contents($file, json_encode($out));
    exit(0);   // module shutdown in the child: the parent's sessions must be left alone
}
pcntl_waitpid($pid, $status);
echo "child: ", file_get_contents($file), "\n";
@unlink($file);
// the child's connections are gone with it; the parent's are still there, untouched
usleep(100000);
$mid = $clients();
echo "parent's connections still open after the child exited: ", $mid === $before ? 'yes' : 'no: ' . json_encode([$before, $mid]), "\n";
// and still usable: the same connections carry the parent's next commands
echo "parent's token still on: ", rl_tls_count_value($res, $l->token), "\n";
var_dump($l->release());
$l2 = $rl->lock("$res:2", 10000);
echo "parent locks again: ", $l2 && $l2->release() ? 'yes' : 'no', "\n";
$after = $clients();
echo "on the same connections (no reconnect): ", $after === $before ? 'yes' : 'no: ' . json_encode([$before, $after]), "\n";
$st = $rl->stats()['nodes'];
echo "no errors in the parent: ", array_sum(array_column($st, 'errors')) + array_sum(array_column($st, 'timeouts')) === 0
    ? 'yes' : json_encode($st), "\n";
echo "keys left: ", rl_tls_count_keys($res) + rl_tls_count_keys("$res:child") + rl_tls_count_keys("$res:2"), "\n";
?>
--EXPECT--
parent locked: 3
one connection per node: [1,1,1]
child: {"release parent lock":false,"child lock":3,"child release":true}
parent's connections still open after the child exited: yes
parent's token still on: 3
bool(true)
parent locks again: yes
on the same connections (no reconnect): yes
no errors in the parent: yes
keys left: 0
