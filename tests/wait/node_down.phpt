--TEST--
wait: a node goes down during a wait: the other nodes' messages still wake the waiter, and the lock is taken on the live quorum
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
$res = rl_name('node_down');
$h = wait_holder($res, 600);
$rl = rl_new();
$killer = pcntl_fork();
if ($killer === 0) {
    usleep(250000);           // the waiter is subscribed by now
    rl_node_ctl('kill', 5);
    exit(0);
}
$l = $rl->lock($res, 10000, ['wait' => 5000, 'retry_delay' => 3000, 'retry_jitter' => 0]);
$t = hrtime(true);
pcntl_waitpid($killer, $st);
[$rel, $what] = wait_holder_done($h);
$after = ($t - $rel) / 1e6;
echo "holder $what; acquired: ", $l ? 'yes' : 'no', "; within 100 ms of the release: ", $after < 100 ? 'yes' : "no ($after ms)", "\n";
echo "node values: ", implode(',', array_map(fn($x) => $x === false ? 'down' : ($x === $l->token ? 'ours' : var_export($x, true)), rl_values($res))), "\n";
var_dump($l->release());

// the node comes back: later waits subscribe on it again
rl_node_ctl('restart', 5);
$h = wait_holder($res, 200);
$l = $rl->lock($res, 10000, ['wait' => 5000, 'retry_delay' => 3000, 'retry_jitter' => 0]);
$t = hrtime(true);
[$rel] = wait_holder_done($h);
echo "after the restart: acquired ", $l ? 'yes' : 'no', ", fast: ", ($t - $rel) / 1e6 < 100 ? 'yes' : 'no', ", on ", rl_count_value($res, $l->token), "\n";
$l->release();
rl_del($res);
?>
--CLEAN--
<?php require __DIR__ . '/../config.inc'; rl_restore_nodes(); ?>
--EXPECT--
holder released; acquired: yes; within 100 ms of the release: yes
node values: ours,ours,ours,ours,down
bool(true)
after the restart: acquired yes, fast: yes, on 5
