--TEST--
Restore: a second lock() with the token of a lock still held fails without deleting that lock, also on the nodes whose answer timed out (SIGSTOP); the first lock stays held on every node
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// 3 nodes: the paused nodes 2 and 3 hold the earlier lock, so the second
// attempt's SET fails there, but its answer is not seen before the timeout:
// the cleanup that follows must not delete the earlier lock on those nodes
$nodes = array_slice(rl_nodes(), 0, 3);
$res = rl_name('caller_token_retry');
$tok = 'owner-' . bin2hex(random_bytes(12));
$rl = new RedLock($nodes, ['retry_count' => 0, 'timeout' => 100, 'connect_timeout' => 100]);
$a = $rl->lock($res, 20000, ['token' => $tok]);
echo "A acquired: ", var_export($a instanceof RedLock\Lock, true), "\n";
rl_node_ctl('pause', 2);
rl_node_ctl('pause', 3);
try {
    // null (node 1 refused, a timeout decided) or QuorumException (both timed out at once)
    $again = $rl->lock($res, 20000, ['token' => $tok]);
    echo "second lock() failed: ", var_export($again === null, true), "\n";
} catch (RedLock\QuorumException $e) {
    echo "second lock() failed: true\n";
}
rl_node_ctl('resume', 2);
rl_node_ctl('resume', 3);
// the resumed nodes run what they hold (the SET, then the cleanup) within a few ms
$held = [];
for ($t = 0; $t < 100; $t++) {
    usleep(20000);
    $held = array_map(fn($v) => $v === $tok, array_slice(rl_values_now($res), 0, 3));
    if (!in_array(false, $held, true) && rl_values($res) === rl_values_now($res)) break;
}
echo "A's key on nodes 1-3: ", json_encode(array_values($held)), "\n";
echo "A isHeld: ", var_export($a->isHeld(), true), "\n";
$other = new RedLock($nodes, ['retry_count' => 0]);
echo "another client acquires: ", var_export($other->lock($res, 5000) !== null, true), "\n";
var_dump($a->release());
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
A acquired: true
second lock() failed: true
A's key on nodes 1-3: [true,true,true]
A isHeld: true
another client acquires: false
bool(true)
