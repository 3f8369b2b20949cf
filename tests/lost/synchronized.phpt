--TEST--
on_lost: synchronized() with auto_extend throws by default and lets the exception out, leaving nothing on the nodes; 'on_lost' => null turns it off
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
$res = rl_name('lost-sync');
$t0 = hrtime(true);
try {
    $rl->synchronized($res, 300, function () use ($t0) {
        while (rl_ms($t0) < 3000) {
        }
        return 'finished';
    }, ['auto_extend' => true, 'max_hold' => 400]);
    echo "no exception\n";
} catch (RedLock\LockLostException $e) {
    $at = rl_ms($t0);
    echo "LockLostException out of synchronized(): ", var_export($at >= 400 && $at < rl_slack(400 + 300 + 1000), true), "\n";
    echo "why: ", var_export(str_contains($e->getMessage(), 'max_hold'), true), "\n";
}
echo "keys left on the nodes: ", rl_count_keys($res), "\n";
$t0 = hrtime(true);
$r = $rl->synchronized($res, 300, function () use ($t0) {
    while (rl_ms($t0) < 900) {
    }
    return 'finished';
}, ['auto_extend' => true, 'max_hold' => 300, 'on_lost' => null]);
echo "with on_lost null: $r\n";
// without auto_extend synchronized() keeps the option's default (null): nothing
$r = $rl->synchronized($res, 200, function () use ($t0) {
    $t = hrtime(true);
    while (rl_ms($t) < 500) {
    }
    return 'finished';
});
echo "without auto_extend: $r\n";
echo "keys left on the nodes: ", rl_count_keys($res), "\n";
?>
--EXPECT--
LockLostException out of synchronized(): true
why: true
keys left on the nodes: 0
with on_lost null: finished
without auto_extend: finished
keys left on the nodes: 0
