--TEST--
Restarted nodes: one node's maxttl key ("2000000000:1": a 23-day TTL made in 1970) does not take the other nodes out of a new process's quorum, without AOF (an age beyond its uptime is not believed) nor with it (of 5 nodes, one witness is not enough)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('word');
$mk = $p . "\0redlock:maxttl";
// a new process each time (every node seen for the first time), as a cron job or a new FPM worker
function fresh(string $p, array $nodes): string
{
    [$rc, $out] = rl_php_child('
        $rl = new RedLock(' . var_export($nodes, true) . ', ["prefix" => ' . var_export($p, true) . ',
            "restart_grace" => "auto", "retry_count" => 0]);
        try {
            $l = $rl->lock("r", 5000);
            echo $l ? "acquired" : "refused";
            if ($l) $l->release();
        } catch (RedLock\QuorumException $e) {
            echo "QuorumException: ", preg_replace("/\d+/", "N", $e->getMessage());
        }', 20);
    return $out;
}
rl_new(['prefix' => $p, 'restart_grace' => 'auto'])->lock('w', 1000)->release(); // keys made, 1 s
$three = array_slice(rl_nodes(), 0, 3);
$r1 = rl_redis(rl_nodes()[0]);
$r1->cmd('SET', $mk, '2000000000:1');
echo "3 nodes, AOF off: ", fresh($p, $three), "\n";
$r1->cmd('CONFIG', 'SET', 'appendonly', 'yes');
echo "5 nodes, AOF on: ", fresh($p, rl_nodes()), "\n";
// and the TTL it claims is not learnt: a node restarted now waits for the
// TTL the others prove (5 s), not 23 days
$rl = rl_new(['prefix' => $p, 'restart_grace' => 'auto', 'retry_count' => 0]);
$rl->lock('r', 5000)->release();
rt_restart_empty(5);
$t0 = hrtime(true);
do {
    $l = $rl->lock('r', 1000);
    if ($l) $l->release();
    $n5 = $rl->stats()['nodes'][rl_nodes()[4]];
    if ($n5['voting'] && $n5['not_voting_why'] === null && rl_ms($t0) > 500) break;
    usleep(100000);
} while (rl_ms($t0) < rl_slack(15000));
echo "node 5 votes again within 15 s: ", $n5['voting'] ? 'yes' : 'no: ' . $n5['not_voting_why'], "\n";
$r1->cmd('CONFIG', 'SET', 'appendonly', 'no');
$r1->cmd('DEL', $mk);
rl_del($p . 'r', $p . 'w', $mk);
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
try { rl_redis(rl_nodes()[0])->cmd('CONFIG', 'SET', 'appendonly', 'no'); } catch (Throwable $e) {}
rl_restore_nodes();
?>
--EXPECT--
3 nodes, AOF off: acquired
5 nodes, AOF on: acquired
node 5 votes again within 15 s: yes
