--TEST--
on_lost 'throw': a lock that runs out during usleep(1.5 s) throws when usleep returns (a blocking internal call is not cut short)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
// (scripts/valgrind-phpt.sh sets VALGRIND_OPTS; the ASan run checks this test's memory)
if (getenv('VALGRIND_OPTS') !== false) die('skip its delivery times cannot be judged under valgrind');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('lost-usleep');
$l = $rl->lock($res, 300, ['on_lost' => 'throw']);
$t0 = hrtime(true);
$after = false;
try {
    usleep(1500000);
    $after = true; // the next statement: never reached
} catch (RedLock\LockLostException $e) {
    $at = rl_ms($t0);
    echo "thrown after usleep returned: ", var_export($at >= 1500 && $at < rl_slack(1500 + 500), true), "\n";
}
echo "statement after usleep ran: ", var_export($after, true), "\n";
rl_del($res);
?>
--EXPECT--
thrown after usleep returned: true
statement after usleep ran: false
