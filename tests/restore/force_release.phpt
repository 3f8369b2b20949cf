--TEST--
Restore: forceRelease() deletes the key on every node whoever holds it; true when a quorum answered
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0, 'connect_timeout' => 150, 'timeout' => 150]);
$res = rl_name('force_release');

// another owner's lock (another process, any token)
[$rc, $out] = rl_php_child('$l = rl_new()->lock(' . var_export($res, true) . ', 60000, ["auto_release" => false]); echo $l ? "acquired" : "null";');
echo "other process: $out, keys: ", rl_count_keys($res), "\n";
var_dump($rl->lock($res, 1000));
echo "forceRelease: ", var_export($rl->forceRelease($res), true), ", keys left: ", rl_count_keys($res), "\n";
$mine = $rl->lock($res, 60000);
echo "lock after it: ", $mine instanceof RedLock\Lock ? 'acquired' : 'null', "\n";

// our own lock too: afterwards it is gone for release() and isHeld()
echo "forceRelease of our own: ", var_export($rl->forceRelease($res), true), ", isHeld ", var_export($mine->isHeld(), true),
    ", release ", var_export($mine->release(), true), "\n";

// nothing there: still true (a quorum answered)
echo "absent resource: ", var_export($rl->forceRelease($res), true), "\n";

// only prefix . resource is deleted
$p = rl_new(['prefix' => 'pfx:', 'retry_count' => 0]);
rl_set_on([1, 2, 3, 4, 5], $res, 'unprefixed-owner-00000', 60000);
rl_set_on([1, 2, 3, 4, 5], 'pfx:' . $res, 'prefixed-owner-0000000', 60000);
echo "with prefix: ", var_export($p->forceRelease($res), true), ", prefixed keys ", rl_count_keys('pfx:' . $res),
    ", unprefixed keys ", rl_count_keys($res), "\n";
rl_del($res);

// quorum rule: 2 of 5 paused -> true, the live nodes' keys are gone; 3 paused -> false
rl_set_on([1, 2, 3, 4, 5], $res, 'some-owner-token-00000', 60000);
try {
    rl_node_ctl('pause', 4);
    rl_node_ctl('pause', 5);
    $t0 = hrtime(true);
    $r = $rl->forceRelease($res);
    echo "2 of 5 paused: ", var_export($r, true), ", decided before the timeout: ", rl_ms($t0) < 140 ? 'yes' : 'no', "\n";
    $left = 0;
    foreach ([1, 2, 3] as $i) { $c = rl_redis(rl_nodes()[$i - 1]); $left += $c->exists($res); $c->close(); }
    echo "  keys left on the live nodes: $left\n";
    rl_set_on([1, 2, 3], $res, 'some-owner-token-00000', 60000);
    rl_node_ctl('pause', 3);
    $t0 = hrtime(true);
    echo "3 of 5 paused: ", var_export($rl->forceRelease($res), true), ", bounded: ", rl_ms($t0) < 600 ? 'yes' : 'no', "\n";
    $left = 0;
    foreach ([1, 2] as $i) { $c = rl_redis(rl_nodes()[$i - 1]); $left += $c->exists($res); $c->close(); }
    echo "  keys left on the 2 live nodes: $left\n";
} finally {
    foreach ([3, 4, 5] as $i) rl_node_ctl('resume', $i);
}
// the paused nodes got the DEL too, once they woke up
usleep(100000);
echo "keys left once resumed: ", rl_count_keys($res), "\n";

rl_expect('empty resource', fn() => $rl->forceRelease(''), 'ValueError', '$resource');
rl_expect('resource with NUL', fn() => $rl->forceRelease("a\0b"), 'ValueError', '$resource');
rl_expect('resource 513 bytes', fn() => $rl->forceRelease(str_repeat('r', 513)), 'ValueError', '$resource');
rl_del($res, 'pfx:' . $res);
echo "nodes up: ", count(array_filter(rl_nodes(), 'rl_ping')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
other process: acquired, keys: 5
NULL
forceRelease: true, keys left: 0
lock after it: acquired
forceRelease of our own: true, isHeld false, release false
absent resource: true
with prefix: true, prefixed keys 0, unprefixed keys 5
2 of 5 paused: true, decided before the timeout: yes
  keys left on the live nodes: 0
3 of 5 paused: false, bounded: yes
  keys left on the 2 live nodes: 0
keys left once resumed: 0
empty resource: ValueError ok
resource with NUL: ValueError ok
resource 513 bytes: ValueError ok
nodes up: 5
