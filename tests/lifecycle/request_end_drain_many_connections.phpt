--TEST--
Request end: with more than 64 pooled connections owing something (here 96 releases answered late with NOSCRIPT), every one is drained, so each release is sent again and no key is left
--EXTENSIONS--
redlock
--SKIPIF--
<?php
require __DIR__ . '/../skipif.inc';
if (rl_socket(5) === null) die('skip node 5 has no unix socket (tests/nodes.sh start makes one)');
if (gethostbynamel('localhost') === false) die('skip localhost does not resolve');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// Issue 19, item 8: the request-end drain took at most RL_MAX_NODES (64)
// connections of the pool; the others' unwritten or late releases were never
// seen to. 96 connections to node 5 (3 spellings of it x 16 databases x
// persistent or not; each RedLock is nodes 1-4 plus one of them), each with a
// release answered late with NOSCRIPT (SCRIPT FLUSH, node 5 paused while the
// others decide), which only the drain can send again. A child process: its
// request end is the drain, and nothing runs after it.
$res = rl_name('drain_many');
[$rc, $out] = rl_php_child('
    $res = ' . var_export($res, true) . ';
    $p5 = rl_port(5);
    $spellings = [["host" => "127.0.0.1", "port" => $p5], ["host" => "localhost", "port" => $p5], ["socket" => rl_socket(5)]];
    $locks = [];
    foreach ([true, false] as $persistent) {
        foreach ($spellings as $s => $node5) {
            for ($db = 0; $db < 16; $db++) {
                $rl = new RedLock([...array_slice(rl_nodes(), 0, 4), $node5 + ["database" => $db]],
                    ["retry_count" => 0, "timeout" => 1000, "persistent" => $persistent]);
                $locks[] = [$rl, $rl->lock("$res:" . (int) $persistent . ":$s:$db", 60000)];
            }
        }
    }
    echo "acquired: ", count(array_filter(array_column($locks, 1))), "\n";
    $r = rl_redis(rl_nodes()[4]);
    $r->cmd("SCRIPT", "FLUSH");
    $r->close();
    rl_node_ctl("pause", 5);
    $released = 0;
    foreach ($locks as [$rl, $l]) $released += (int) $l->release();
    rl_node_ctl("resume", 5);
    echo "released: $released\n";
', 30);
echo $out, "\n";
// every retried release reaches node 5 soon after the child's request end
$left = -1;
for ($t = 0; $t < 100 && $left !== 0; $t++) {
    if ($t) usleep(20000);
    $left = 0;
    $r = rl_redis(rl_nodes()[4]);
    for ($db = 0; $db < 16; $db++) {
        $r->cmd('SELECT', $db);
        $left += count($r->cmd('KEYS', "$res:*"));
    }
    $r->close();
}
echo "child exit: $rc\n";
echo "keys left on node 5: $left\n";
$r = rl_redis(rl_nodes()[4]);
for ($db = 0; $db < 16; $db++) {
    $r->cmd('SELECT', $db);
    foreach ($r->cmd('KEYS', "$res:*") as $k) $r->cmd('DEL', $k);
}
$r->close();
?>
--CLEAN--
<?php require __DIR__ . '/../config.inc'; rl_restore_nodes(); ?>
--EXPECT--
acquired: 96
released: 96
child exit: 0
keys left on node 5: 0
