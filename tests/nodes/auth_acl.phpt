--TEST--
AUTH: ACL user (percent-decoded URI credentials) and requirepass; wrong or missing credentials are node failures, never reuse an authenticated connection
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$p = array_map('rl_port', [1, 2, 3, 4, 5]);
$n1 = rl_redis(rl_nodes()[0]);
$n2 = rl_redis(rl_nodes()[1]);
var_dump($n1->cmd('ACL', 'SETUSER', 'rl_user', 'on', '>pw:1@x/y', '~*', '+@all'));
var_dump($n2->cmd('CONFIG', 'SET', 'requirepass', 'RootPw-2'));

$good = new RedLock([
    "redis://rl%5Fuser:pw%3A1%40x%2Fy@127.0.0.1:$p[0]",
    ['host' => '127.0.0.1', 'port' => $p[1], 'password' => 'RootPw-2'],
    rl_nodes()[2], rl_nodes()[3], rl_nodes()[4],
], ['retry_count' => 0]);
echo "user: ", var_export($good->nodes()[0]['user'], true), "\n";
$res = rl_name('auth_acl');
$a1 = rl_redis(rl_nodes()[0]); $a1->cmd('AUTH', 'rl_user', 'pw:1@x/y');
$a2 = rl_redis(rl_nodes()[1]); $a2->cmd('AUTH', 'RootPw-2');
// foreign owners on nodes 4 and 5: the quorum needs both authenticated nodes
rl_set_on([4, 5], $res, 'foreign');
$l = $good->lock($res, 5000);
echo "authenticated nodes hold our token: ", var_export($a1->get($res) === $l->token && $a2->get($res) === $l->token, true), "\n";
echo "node 3: ", var_export(rl_redis(rl_nodes()[2])->get($res) === $l->token, true), "\n";
var_dump($l->release());
echo "keys on auth nodes: ", $a1->exists($res) + $a2->exists($res), "\n";
rl_del($res);

// wrong passwords on 2 nodes: still a quorum of 3, those 2 count as errors
$wrong = new RedLock([
    "redis://rl_user:nope-wrong-1@127.0.0.1:$p[0]",
    ['host' => '127.0.0.1', 'port' => $p[1], 'password' => 'nope-wrong-2'],
    rl_nodes()[2], rl_nodes()[3], rl_nodes()[4],
], ['retry_count' => 0]);
$l = $wrong->lock($res, 5000);
var_dump($l instanceof RedLock\Lock);
echo "auth nodes untouched: ", var_export($a1->exists($res) + $a2->exists($res) === 0, true), "\n";
$l->release();
echo "auth nodes after release: ", $a1->exists($res) + $a2->exists($res), "\n";
$st = $wrong->stats()['nodes'];
foreach ([0, 1] as $i) {
    $le = $st["127.0.0.1:$p[$i]"]['last_error'] ?? null;
    echo "node ", $i + 1, " last_error set: ", var_export(is_string($le) && $le !== '', true),
        ", no password: ", var_export(!str_contains((string) $le, 'nope-wrong'), true), "\n";
}

// 3-node sets where 2 need auth: wrong and missing credentials -> QuorumException,
// even though authenticated connections to the same servers exist in this process
foreach ([
    'wrong' => ["redis://rl_user:nope-wrong-1@127.0.0.1:$p[0]", "redis://:nope-wrong-2@127.0.0.1:$p[1]"],
    // no password for the requirepass node (a user without password is a ValueError)
    'missing' => ["redis://rl_user:nope-wrong-1@127.0.0.1:$p[0]", "127.0.0.1:$p[1]"],
] as $what => $pair) {
    $rl = new RedLock([...$pair, rl_nodes()[2]], ['retry_count' => 0]);
    try {
        $rl->lock($res, 5000);
        echo "$what: no exception\n";
    } catch (RedLock\QuorumException $e) {
        $m = $e->getMessage();
        echo "$what: QuorumException, names both: ",
            var_export(str_contains($m, "127.0.0.1:$p[0]") && str_contains($m, "127.0.0.1:$p[1]"), true),
            ", no password: ", var_export(!str_contains($m, 'nope-wrong') && !str_contains($m, 'pw:1@x/y') && !str_contains($m, 'RootPw-2'), true), "\n";
    }
    echo "keys on node 3: ", rl_redis(rl_nodes()[2])->exists($res), "\n";
}
// and the good set still works afterwards; foreign owners on nodes 4 and 5
// make the quorum depend on the two authenticated nodes
rl_del($res);
rl_set_on([4, 5], $res, 'foreign');
$l = $good->lock($res, 5000);
echo "good again: ", var_export($l instanceof RedLock\Lock && $a1->get($res) === $l->token && $a2->get($res) === $l->token, true), "\n";
$l?->release();

// restore
var_dump($n1->cmd('ACL', 'DELUSER', 'rl_user'));
var_dump($a2->cmd('CONFIG', 'SET', 'requirepass', ''));
rl_del($res);
echo "nodes up: ", count(array_filter(rl_nodes(), 'rl_ping')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
try { rl_redis(rl_nodes()[0])->cmd('ACL', 'DELUSER', 'rl_user'); } catch (Throwable $e) {}
try {
    $r = rl_redis(rl_nodes()[1]);
    $r->cmd('AUTH', 'RootPw-2');
    $r->cmd('CONFIG', 'SET', 'requirepass', '');
} catch (Throwable $e) {}
if (!rl_ping(rl_nodes()[1])) {
    try { rl_node_ctl('restart', 2); } catch (Throwable $e) {}
}
?>
--EXPECT--
string(2) "OK"
string(2) "OK"
user: 'rl_user'
authenticated nodes hold our token: true
node 3: true
bool(true)
keys on auth nodes: 0
bool(true)
auth nodes untouched: true
auth nodes after release: 0
node 1 last_error set: true, no password: true
node 2 last_error set: true, no password: true
wrong: QuorumException, names both: true, no password: true
keys on node 3: 0
missing: QuorumException, names both: true, no password: true
keys on node 3: 0
good again: true
int(1)
string(2) "OK"
nodes up: 5
