--TEST--
Restarted nodes: a lock held across an empty restart gets its key back on that node at its next extend() (SET NX, never over another owner's key) and the watchdog's extension
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('repair');
// (timeouts of 500 ms: the first call after node 1's restart reconnects, loads the scripts
// and repairs there; on a slow build, the ZTS debug one, the repair's SET landed after a 50 ms
// timeout had failed it, and extend() answered false with our key back on 3 nodes)
$rl = rl_new(['prefix' => $p, 'restart_grace' => 'auto', 'timeout' => (int) rl_slack(500), 'connect_timeout' => (int) rl_slack(500)]);
$a = rt_lock_on_three($rl, $p, 'a', 20000);  // on exactly nodes 1-3: after node 1 restarts only 2 hold it
$b = rt_lock_on_three($rl, $p, 'b', 20000);
$c = $rl->lock('c', 20000);                   // on all 5
rl_set_on([5], $p . 'd', 'foreign', 20000);    // on nodes 1-4: the watchdog keeps a quorum while node 1 is down
$d = $rl->lock('d', 3000, ['auto_extend' => true]);
$r = rl_redis(rl_nodes()[4]);
$r->cmd('DEL', $p . 'd');
$r->close();
// (the restart comes before the watchdog's first extension of d, at 1 s: its connections, new
// then, know node 1's run_id from the RedLock's own, which took the lock there)
// (the SETs past the quorum were sent by lock(); a moment for them to land: bounded)
for ($i = 0; $i < 50 && (rl_count_value($p . 'c', $c->token) < 5 || rl_count_value($p . 'd', $d->token) < 4); $i++) usleep(10000);
echo "a, b, c, d on: ", rl_count_value($p . 'a', $a->token), rl_count_value($p . 'b', $b->token),
    rl_count_value($p . 'c', $c->token), rl_count_value($p . 'd', $d->token), "\n";
rt_restart_empty(1);

echo "a before extend on: ", rl_count_value($p . 'a', $a->token), "\n";
$ok = $a->extend(20000);
var_dump($ok);
if (!$ok) echo "extend failed: ", json_encode(array_map(fn($n) => [$n['voting'], $n['not_voting_why'], $n['last_error']], $rl->stats()['nodes'])), "\n";
echo "a after extend on: ", rl_count_value($p . 'a', $a->token), ", node 1: ", rl_values($p . 'a')[1] === $a->token ? 'ours' : 'not ours',
    ", pttl > 19000: ", rl_pttls($p . 'a')[1] > 19000 ? 'yes' : 'no', "\n";

// never over another owner's key
rl_set_on([1], $p . 'b', 'foreign', 20000);
var_dump($b->extend(20000));
echo "b node 1 still: ", rl_values($p . 'b')[1], "\n";

// a key missing on a node that did not restart (expired, force-released there) is left missing
$r = rl_redis(rl_nodes()[1]);
$r->cmd('DEL', $p . 'c');
$r->close();
var_dump($c->extend(20000));
echo "c node 1: ", rl_values($p . 'c')[1] === $c->token ? 'ours' : 'not ours', ", node 2: ", var_export(rl_values($p . 'c')[2], true), "\n";

// the watchdog's extension (every ttl/3) repairs too
$t0 = hrtime(true);
while (rl_values($p . 'd')[1] !== $d->token && rl_ms($t0) < rl_slack(3000)) usleep(20000);
echo "watchdog put d back on node 1: ", rl_values($p . 'd')[1] === $d->token ? 'yes' : 'no', ", valid: ", var_export($d->isValid(), true), "\n";
foreach ([$a, $b, $c, $d] as $l) $l->release();
rl_del($p . 'a', $p . 'b', $p . 'c', $p . 'd');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
a, b, c, d on: 3354
a before extend on: 2
bool(true)
a after extend on: 3, node 1: ours, pttl > 19000: yes
bool(false)
b node 1 still: foreign
bool(true)
c node 1: ours, node 2: NULL
watchdog put d back on node 1: yes, valid: true
