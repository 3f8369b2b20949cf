--TEST--
auto_extend with max_hold: the watchdog stops extending after max_hold; the lock then expires by its TTL
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('max_hold');
$t0 = hrtime(true);
$l = $rl->lock($res, 600, ['auto_extend' => true, 'max_hold' => 1500]);
$other = rl_new(['retry_count' => 0]);
$conflicts = 0;
while ($l->isValid() && rl_ms($t0) < 5000) {
    usleep(20000);
    if (rl_ms($t0) < 1400) {
        $conflicts += $other->lock($res, 600) === null;
    }
}
$end = rl_ms($t0);
// extended until 1.5 s, then valid at most one ttl more
echo "held past the ttl: ", var_export($end > 1500, true), "\n";
echo "ended by max_hold + ttl: ", var_export($end <= 1500 + 600 + 100, true), ($end <= 2200 ? '' : " ($end ms)"), "\n";
echo "contender failed while held: ", var_export($conflicts > 20, true), "\n";
echo "remaining: ", $l->remaining(), "\n";
usleep(50000);
echo "keys left on the nodes: ", rl_count_keys($res), "\n";
$x = $other->lock($res, 600);
echo "another owner takes it: ", var_export($x instanceof RedLock\Lock, true), "\n";
$x?->release();
var_dump($l->release());

// max_hold 0: no limit (the default); a negative max_hold is refused
$m = $rl->lock($res, 300, ['auto_extend' => true, 'max_hold' => 0]);
usleep(800000);
echo "max_hold 0 keeps extending: ", var_export($m->isValid(), true), "\n";
var_dump($m->release());
rl_expect('max_hold -1', fn() => $rl->lock($res, 300, ['auto_extend' => true, 'max_hold' => -1]), 'ValueError', 'max_hold');
?>
--EXPECT--
held past the ttl: true
ended by max_hold + ttl: true
contender failed while held: true
remaining: 0
keys left on the nodes: 0
another owner takes it: true
bool(false)
max_hold 0 keeps extending: true
bool(true)
max_hold -1: ValueError ok
