--TEST--
Restarted nodes: a process that never saw the node before its restart (first sight) keeps it out too: another node's maxttl key is older than the node
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('first');
$ttl = 6000;
$a = rl_new(['prefix' => $p, 'restart_grace' => 'auto']);
$la = rt_lock_on_three($a, $p, 'r', $ttl);
$validEnd = hrtime(true) + $la->remaining() * 1e6;
usleep(2300000); // the maxttl key is then older than node 1 will be, by more than uptime's uncertainty (its seconds count on the wall clock: up to 1 s either way)
rt_restart_empty(1);
// a new process: it never knew node 1's run_id
[$rc, $out] = rl_php_child('
    $b = new RedLock(rl_nodes(), ["prefix" => ' . var_export($p, true) . ', "restart_grace" => "auto", "retry_count" => 0]);
    $t0 = hrtime(true);
    $first = null;
    while (rl_ms($t0) < ' . rl_slack(3 * $ttl) . ') {
        $l = $b->lock("r", 1000);
        if ($first === null) {
            $n = $b->stats()["nodes"][rl_nodes()[0]];
            echo "first try: ", $l ? "acquired" : "refused", ", node 1 voting: ", var_export($n["voting"], true), "\n";
            $first = true;
        }
        if ($l) { echo "at ", hrtime(true), "\n"; $l->release(); break; }
        usleep(50000);
    }
', 30);
echo trim(preg_replace('/^at \d+$/m', '', $out)), "\n";
preg_match('/^at (\d+)$/m', $out, $m);
echo "acquired: ", $m ? 'yes' : 'no', "\n";
echo "only after A's validity: ", $m && (int) $m[1] >= $validEnd ? 'yes' : 'no', "\n";
rl_del($p . 'r');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
first try: refused, node 1 voting: false
acquired: yes
only after A's validity: yes
