--TEST--
Restarted nodes: once no quorum is possible (3 of 5 refuse), lock() returns at once, without waiting for a hung node's answer to judge a node seen for the first time
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
$p = rt_prefix('impossible');
$timeout = 3000; // the hung node's: lock() returning well before it did not wait for it
rl_set_on([1, 2, 3], $p . 'r', 'foreign', 60000);
// the worker's connections are open (a call waits for the identity of a
// connection it opens itself: API "Nodes", one server never counts twice)
// (twice: the first may decide before node 5's identity came)
$w = rl_new(['prefix' => $p, 'timeout' => $timeout]);
$w->isLocked('warm');
usleep(100000);
$w->isLocked('warm');
rl_node_ctl('pause', 5);
$slow = 0;
$outcomes = [];
for ($k = 0; $k < 5; $k++) {
    // a new object each time: every node is seen for the first time (not judged yet)
    $rl = rl_new(['prefix' => $p, 'restart_grace' => 'auto', 'retry_count' => 0, 'timeout' => $timeout]);
    $t0 = hrtime(true);
    try {
        $l = $rl->lock('r', 10000);
        $outcomes[] = $l ? 'acquired' : 'null';
    } catch (RedLock\QuorumException $e) {
        $outcomes[] = 'quorum';
    }
    if (rl_ms($t0) >= $timeout) $slow++;
}
rl_node_ctl('resume', 5);
echo "outcomes: ", implode(' ', array_unique($outcomes)), "\n";
echo "calls that waited for the hung node: $slow of 5\n";
rl_del($p . 'r');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
outcomes: null
calls that waited for the hung node: 0 of 5
