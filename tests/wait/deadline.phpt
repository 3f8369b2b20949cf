--TEST--
wait: the deadline holds with wake_on_release, also under a flood of release messages that free nothing
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
$res = rl_name('deadline');
$h = wait_holder($res, 1500);
$rl = rl_new();
// held all along: null at the deadline, not at a retry timer past it
$t0 = hrtime(true);
var_dump($rl->lock($res, 5000, ['wait' => 300, 'retry_delay' => 5000, 'retry_jitter' => 0]));
$ms = rl_ms($t0);
echo "null at the deadline: ", ($ms >= 290 && $ms < rl_slack(600)) ? 'yes' : "no ($ms ms)", "\n";

// someone publishes fake releases on the channel all the time: every wake-up finds
// the lock held, and the wait still ends at its deadline
$flood = pcntl_fork();
if ($flood === 0) {
    $r = rl_redis(rl_nodes()[0]);
    $end = hrtime(true) + 700e6;
    for ($i = 0; hrtime(true) < $end; $i++) {
        $r->cmd('PUBLISH', 'redlock:released:' . $res, "3 fake$i");
        usleep(2000);
    }
    exit(0);
}
$t0 = hrtime(true);
var_dump($rl->lock($res, 5000, ['wait' => 400]));
$ms = rl_ms($t0);
echo "flood: null at the deadline: ", ($ms >= 390 && $ms < rl_slack(700)) ? 'yes' : "no ($ms ms)", "\n";
pcntl_waitpid($flood, $st);
[, $what] = wait_holder_done($h);
echo "holder $what\n";
rl_del($res);
?>
--EXPECT--
NULL
null at the deadline: yes
NULL
flood: null at the deadline: yes
holder released
