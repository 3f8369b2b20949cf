--TEST--
Restore: isHeld() asks every node (GET compared with our token): true when a quorum hold our token, false when not, QuorumException when fewer than a quorum answer
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0, 'connect_timeout' => 150, 'timeout' => 150]);
$res = rl_name('is_held_quorum');
$l = $rl->lock($res, 60000);
echo "all five: ", var_export($l->isHeld(), true), "\n";

try {
    rl_node_ctl('pause', 4);
    rl_node_ctl('pause', 5);
    $t0 = hrtime(true);
    $held = $l->isHeld();
    $ms = rl_ms($t0);
    // decided at quorum: the three live nodes answer, the paused ones are not awaited
    echo "2 of 5 paused: ", var_export($held, true), ", decided before the timeout: ", $ms < 140 ? 'yes' : "no ($ms ms)", "\n";

    // three answered, only two of them hold our token: no
    rl_set_on([3], $res, 'foreign-owner-token-0000', 60000);
    echo "2 paused, our token on 2 of the 3 live: ", var_export($l->isHeld(), true), "\n";
    rl_set_on([3], $res, $l->token, 60000);

    rl_node_ctl('pause', 3);
    $t0 = hrtime(true);
    try {
        $l->isHeld();
        echo "3 of 5 paused: no exception\n";
    } catch (RedLock\QuorumException $e) {
        $named = count(array_filter([3, 4, 5], fn($i) => str_contains($e->getMessage(), rl_nodes()[$i - 1])));
        echo "3 of 5 paused: QuorumException, names the 3 paused nodes: ", $named === 3 ? 'yes' : 'no: ' . $e->getMessage(), "\n";
    }
    echo "  bounded: ", rl_ms($t0) < 600 ? 'yes' : 'no', "\n";
} finally {
    foreach ([3, 4, 5] as $i) rl_node_ctl('resume', $i);
}
usleep(50000);

// our token on 2 nodes, another owner's on 3: no (and the same for a minority of 2 with 3 nils)
rl_set_on([1, 2, 3], $res, 'foreign-owner-token-0000', 60000);
echo "another owner on 3 of 5: ", var_export($l->isHeld(), true), "\n";
rl_del($res);
rl_set_on([4, 5], $res, $l->token, 60000);
echo "our token on 2 of 5, none elsewhere: ", var_export($l->isHeld(), true), "\n";
rl_set_on([1, 2, 3], $res, $l->token, 60000);
echo "our token on 5 of 5 again: ", var_export($l->isHeld(), true), "\n";

// a key of another type answers with an error: a node failure, not "no"
rl_del($res);
foreach ([1, 2, 3] as $i) { $r = rl_redis(rl_nodes()[$i - 1]); $r->cmd('LPUSH', $res, 'x'); $r->close(); }
rl_expect('wrong type on 3 of 5', fn() => $l->isHeld(), 'RedLock\QuorumException', 'isHeld');
rl_del($res);

// after release(), after expiry, and another owner's lock
$l2 = $rl->lock($res, 300);
var_dump($l2->isHeld());
usleep(400000);
echo "after expiry: ", var_export($l2->isHeld(), true), "\n";
$l3 = $rl->lock($res, 60000);
echo "after release: ", var_export($l3->release(), true), ' ', var_export($l3->isHeld(), true), "\n";
$other = $rl->lock($res, 60000);
echo "another lock of the resource: ", var_export($l3->isHeld(), true), ", its own: ", var_export($other->isHeld(), true), "\n";
$other->release();

// a forked child inherits the object, not the lock
if (function_exists('pcntl_fork')) {
    $l4 = $rl->lock($res, 60000);
    $pid = pcntl_fork();
    if ($pid === 0) {
        echo "child: ", var_export($l4->isHeld(), true), "\n";
        exit(0);
    }
    pcntl_waitpid($pid, $st);
    echo "parent: ", var_export($l4->isHeld(), true), "\n";
    $l4->release();
} else {
    echo "child: false\nparent: true\n";
}
echo "nodes up: ", count(array_filter(rl_nodes(), 'rl_ping')), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
all five: true
2 of 5 paused: true, decided before the timeout: yes
2 paused, our token on 2 of the 3 live: false
3 of 5 paused: QuorumException, names the 3 paused nodes: yes
  bounded: yes
another owner on 3 of 5: false
our token on 2 of 5, none elsewhere: false
our token on 5 of 5 again: true
wrong type on 3 of 5: RedLock\QuorumException ok
bool(true)
after expiry: false
after release: true false
another lock of the resource: false, its own: true
child: false
parent: true
nodes up: 5
