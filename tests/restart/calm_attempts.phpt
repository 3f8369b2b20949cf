--TEST--
Restarted nodes: once every node voted in a checked attempt, a lock() skips the maxttl key (a calm attempt: the key is neither read nor raised); a longer TTL is checked again; a new RedLock of the same settings starts calm from the pooled connections; a node restarted empty under a calm client (its own or the pool's) is still out of the quorum (no second holder) until up for the grace
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('calm');
$mk = $p . "\0redlock:maxttl";
$ttl = 3000;
$b = rl_new(['prefix' => $p, 'restart_grace' => 'auto']);
$b->lock('warm', $ttl)->release(); // checked: every node answers its maxttl key

function maxttls(string $mk): string
{
    $out = [];
    foreach (rl_nodes() as $addr) {
        $r = rl_redis($addr);
        $v = $r->cmd('GET', $mk);
        $r->close();
        $out[] = $v === null ? '-' : explode(':', $v)[0];
    }
    return implode(',', $out);
}
echo "after the first lock: ", maxttls($mk), "\n";

// node 2's key lowered by hand: a calm attempt does not touch it (a checked one raises it again)
$r2 = rl_redis(rl_nodes()[1]);
[, $created] = explode(':', $r2->cmd('GET', $mk));
$r2->cmd('SET', $mk, "5:$created");
$l = $b->lock('warm', $ttl);
echo "calm attempt acquired: ", $l ? 'yes' : 'no', "\n";
$l->release();
echo "after a calm attempt: ", maxttls($mk), "\n";
// a TTL longer than the nodes are known to hold: checked, raised on every node
$b->lock('warm', 4000)->release();
echo "after a longer TTL: ", maxttls($mk), "\n";
// the next RedLock of the same settings (an FPM worker's next request) starts calm from the
// pooled connections; another prefix does not
[, $created] = explode(':', $r2->cmd('GET', $mk));
$r2->cmd('SET', $mk, "5:$created");
$next = rl_new(['prefix' => $p, 'restart_grace' => 'auto']);
$next->lock('warm', $ttl)->release();
echo "a new RedLock, same settings: ", maxttls($mk), "\n";
$other = rl_new(['prefix' => $p . 'x', 'restart_grace' => 'auto']);
$other->lock('warm', $ttl)->release();
echo "another prefix: ", maxttls($p . "x\0redlock:maxttl"), "\n";
$next->lock('warm', 4000)->release();
unset($next, $other);
$r2->close();

// A holds on exactly nodes 1-3; node 1 restarts empty; B (calm for 3000 ms) must not get in
$a = rl_new(['prefix' => $p, 'restart_grace' => 'auto']);
$la = rt_lock_on_three($a, $p, 'r', $ttl);
$validUntil = hrtime(true) + $la->remaining() * 1e6;
rt_restart_empty(1);
// a new RedLock calm from the pool: its first attempt after the restart is not counted on node 1
$c = rl_new(['prefix' => $p, 'restart_grace' => 'auto']);
try {
    $lc = $c->lock('r', $ttl, ['retry_count' => 0]);
} catch (RedLock\QuorumException $e) {
    $lc = null;
}
// Refused while A's keys live on nodes 2 and 3 (node 1 is not counted). On a loaded machine the
// restart can outlast A's 3 s: then C finds A's keys gone and rightly gets in, with its token on
// node 2 or 3. Two holders is C's token on none of them: a quorum of 1, 4, 5, node 1 counted.
$cv = $lc ? rl_values($p . 'r') : [];
$cOnAs = $lc && (($cv[2] ?? null) === $lc->token || ($cv[3] ?? null) === $lc->token);
echo "a new RedLock right after the restart: ", $lc && !$cOnAs ? 'acquired beside A (node 1 counted)' : 'no second holder', "\n";
if ($lc) $lc->release();
unset($c);
$early = 0;
[$lb, $ms] = rt_try_until($b, 'r', $ttl, rl_slack(3 * 4000), 50, function ($l, $ms) use ($la, &$early) {
    if ($l && $la->isValid()) {
        $early++;
    }
});
echo "B acquired while A valid: ", $early, "\n";
echo "B acquired: ", $lb ? 'yes' : 'no', "\n";
echo "not before A's validity ended: ", hrtime(true) >= $validUntil ? 'yes' : 'no', "\n";
$on = $lb ? rl_count_value($p . 'r', $lb->token) : 0;
echo "B's token on a quorum: ", $on >= 3 ? 'yes' : "no ($on)", "\n";
if ($lb) $lb->release();
rl_del($p . 'r', $p . 'warm', $mk, $p . 'xwarm', $p . "x\0redlock:maxttl");
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
after the first lock: 3000,3000,3000,3000,3000
calm attempt acquired: yes
after a calm attempt: 3000,5,3000,3000,3000
after a longer TTL: 4000,4000,4000,4000,4000
a new RedLock, same settings: 4000,5,4000,4000,4000
another prefix: 3000,3000,3000,3000,3000
a new RedLock right after the restart: no second holder
B acquired while A valid: 0
B acquired: yes
not before A's validity ended: yes
B's token on a quorum: yes
