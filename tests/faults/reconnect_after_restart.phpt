--TEST--
Connections are health-checked on reuse: after nodes restart, the next lock reconnects transparently
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('reconnect');
$l = $rl->lock($res, 5000);
$l->release();
rl_node_ctl('restart', 1);
rl_node_ctl('restart', 4);
// a foreign owner on nodes 2 and 3: the quorum needs both restarted nodes
rl_set_on([2, 3], $res, 'foreign');
$l = $rl->lock($res, 5000);
var_dump($l instanceof RedLock\Lock);
echo "ours on: ", rl_count_value($res, $l->token), "\n";
var_dump($l->release());
echo "foreign left: ", rl_count_value($res, 'foreign'), ", keys: ", rl_count_keys($res), "\n";
rl_del($res);
// a connection killed by the server (CLIENT KILL) is noticed too
foreach (rl_nodes() as $addr) {
    rl_redis($addr)->cmd('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
}
rl_set_on([2, 5], $res, 'foreign');
$l = $rl->lock($res, 5000);
echo "after CLIENT KILL ours on: ", $l ? rl_count_value($res, $l->token) : 'not acquired', "\n";
var_dump($l->release());
rl_del($res);
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
bool(true)
ours on: 3
bool(true)
foreign left: 2, keys: 2
after CLIENT KILL ours on: 3
bool(true)
