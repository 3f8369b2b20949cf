--TEST--
lock(): acquires on all nodes with our token and a PTTL <= ttl; release() deletes it everywhere
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new();
var_dump($rl->quorum());
$res = rl_name('lock_basic');

$t0 = hrtime(true);
$lock = $rl->lock($res, 5000);
$ms = rl_ms($t0);
var_dump(get_class($lock));
var_dump($lock->resource === $res, $lock->ttl, $lock->fence);
var_dump((bool) preg_match('/^[0-9a-f]{40}$/', $lock->token));
echo "nodes with our token: ", rl_count_value($res, $lock->token), "\n";
$pttl = rl_pttls($res);
echo "nodes with 0 < PTTL <= 5000: ", count(array_filter($pttl, fn($p) => $p > 0 && $p <= 5000)), "\n";
var_dump($lock->isValid(), $lock->isReleased());
$r = $lock->remaining();
// validity = ttl - elapsed - (ttl * 0.01 + 2)
var_dump(is_int($r), $r > 3000, $r <= 5000 - 52);
var_dump($ms < 1000);

var_dump($lock->release());
var_dump($lock->isReleased(), $lock->isValid());
echo "nodes with the key: ", rl_count_keys($res), "\n";

// object destruction never releases
$lock = $rl->lock($res, 5000);
$token = $lock->token;
unset($lock);
gc_collect_cycles();
echo "after unset, nodes with our token: ", rl_count_value($res, $token), "\n";
rl_del($res);
?>
--EXPECT--
int(3)
string(12) "RedLock\Lock"
bool(true)
int(5000)
NULL
bool(true)
nodes with our token: 5
nodes with 0 < PTTL <= 5000: 5
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
nodes with the key: 0
after unset, nodes with our token: 5
