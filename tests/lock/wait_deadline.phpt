--TEST--
wait: retry until an overall deadline instead of retry_count; null when it runs out, the lock once freed
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$holder = rl_new();
$rl = rl_new();

// held for long: null after about the deadline
$res = rl_name('wait_a');
$held = $holder->lock($res, 20000);
$t0 = hrtime(true);
var_dump($rl->lock($res, 5000, ['wait' => 300, 'retry_delay' => 50, 'retry_jitter' => 0]));
$ms = rl_ms($t0);
echo "ran out near the deadline: ", ($ms >= 240 && $ms < rl_slack(700)) ? 'yes' : "no ($ms)", "\n";
$held->release();

// held for 250 ms: acquired once it expires, well before the deadline
$res2 = rl_name('wait_b');
$held = $holder->lock($res2, 250);
$t0 = hrtime(true);
$l = $rl->lock($res2, 5000, ['wait' => 1500, 'retry_delay' => 30, 'retry_jitter' => 0]);
$ms = rl_ms($t0);
var_dump($l instanceof RedLock\Lock);
echo "after the holder expired, before the deadline: ", ($ms >= 150 && $ms < rl_slack(1000)) ? 'yes' : "no ($ms)", "\n";
// (the holder's key expires on each node at its own moment: the attempt that wins may find
// it still there on one node, so the lock stands on a quorum, not always on all 5)
echo "ours on a quorum: ", rl_count_value($res2, $l->token) >= 3 ? 'yes' : 'no', "\n";
$l->release();

// wait from the constructor
$held = $holder->lock($res, 20000);
$t0 = hrtime(true);
var_dump(rl_new(['wait' => 200, 'retry_delay' => 40, 'retry_jitter' => 0])->lock($res, 5000));
$ms = rl_ms($t0);
echo "constructor wait: ", ($ms >= 150 && $ms < rl_slack(600)) ? 'yes' : "no ($ms)", "\n";
$held->release();

// synchronized honours wait too
$held = $holder->lock($res, 20000);
$t0 = hrtime(true);
try {
    $rl->synchronized($res, 1000, fn() => 1, ['wait' => 200, 'retry_delay' => 40, 'retry_jitter' => 0]);
} catch (RedLock\LockConflictException $e) {
    $ms = rl_ms($t0);
    echo "synchronized: LockConflictException after the wait: ", ($ms >= 150 && $ms < rl_slack(600)) ? 'yes' : "no ($ms)", "\n";
}
$held->release();
rl_del($res, $res2);
?>
--EXPECT--
NULL
ran out near the deadline: yes
bool(true)
after the holder expired, before the deadline: yes
ours on a quorum: yes
NULL
constructor wait: yes
synchronized: LockConflictException after the wait: yes
