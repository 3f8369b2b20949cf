--TEST--
on_lost 'throw' without auto_extend: a busy loop gets LockLostException once the validity ran out, not before, and within the TTL + 1 s
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
$res = rl_name('lost-validity');
$ttl = 500;
$t0 = hrtime(true);
$l = $rl->lock($res, $ttl, ['on_lost' => 'throw']);
$at = null;
$valid_at_catch = null;
try {
    while (rl_ms($t0) < 5000) {
    }
} catch (RedLock\LockLostException $e) {
    $at = rl_ms($t0);
    $valid_at_catch = $l->isValid();
    $msg = $e->getMessage();
}
echo "caught: ", var_export($at !== null, true), "\n";
// the validity is the ttl less the drift (ttl * 0.01 + 2 ms) and the acquisition's time
$low = $ttl - 0.01 * $ttl - 2 - 50;
echo "not before the validity ended: ", var_export($valid_at_catch === false && $at >= $low, true), $at >= $low ? '' : " ($at ms)", "\n";
echo "before the TTL + 1 s: ", var_export($at !== null && $at < rl_slack($ttl + 1000), true), "\n";
echo "why: ", var_export(str_contains($msg ?? '', $res) && str_contains($msg ?? '', 'validity ran out'), true), "\n";
// the key is gone from the nodes by now (its TTL)
usleep(100000);
echo "keys left: ", rl_count_keys($res), "\n";
var_dump($l->release());
?>
--EXPECT--
caught: true
not before the validity ended: true
before the TTL + 1 s: true
why: true
keys left: 0
bool(false)
