--TEST--
Validity: remaining() <= ttl - drift, decreases with the clock, 0 and isValid() false after expiry
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('validity');

$t0 = hrtime(true);
$l = $rl->lock($res, 1000);
$r1 = $l->remaining();
$t1 = hrtime(true);
$lockms = ($t1 - $t0) / 1e6;
// 1000 - (1000 * 0.01 + 2) = 988, minus the time lock() took
echo "r1 <= 988: ", var_export($r1 <= 988, true), "\n";
// and no smaller than that measured from before the call (validity counts from the first SET)
echo "r1 >= 988 - elapsed - 1: ", var_export($r1 >= 988 - ceil($lockms) - 1, true), "\n";
echo "r1 > 700: ", var_export($r1 > 700, true), "\n";
usleep(120000);
$r2 = $l->remaining();
$slept = (hrtime(true) - $t1) / 1e6;
echo "decreased by at least the time slept: ", ($r1 - $r2) >= floor($slept) - 1 ? 'yes' : "no ($r1 -> $r2 after $slept ms)", "\n";
echo "r2 > 0: ", var_export($r2 > 0, true), "\n";
var_dump($l->isValid());
echo "PTTL <= 1000: ", count(array_filter(rl_pttls($res), fn($p) => $p > 0 && $p <= 1000)), "\n";
$l->release();

// expiry: ttl 150, sleep past it
$l = $rl->lock($res, 150);
var_dump($l->isValid());
usleep(200000);
var_dump($l->isValid(), $l->remaining());
echo "keys after expiry: ", rl_count_keys($res), "\n";

// drift_factor from the constructor and per call
$l = rl_new(['drift_factor' => 0.5, 'retry_count' => 0])->lock($res, 1000);
$r = $l->remaining();
echo "drift 0.5: ", ($r <= 498 && $r > 300) ? 'ok' : "bad ($r)", "\n";
$l->release();
$l = $rl->lock($res, 1000, ['drift_factor' => 0.25]);
$r = $l->remaining();
echo "drift 0.25: ", ($r <= 748 && $r > 550) ? 'ok' : "bad ($r)", "\n";
$l->release();
$l = $rl->lock($res, 1000, ['drift_factor' => 0.0]);
$r = $l->remaining();
echo "drift 0: ", ($r <= 998 && $r > 800) ? 'ok' : "bad ($r)", "\n";
$l->release();

// monotonic: non-increasing over many reads
$l = $rl->lock($res, 2000);
$prev = $l->remaining();
$ok = true;
for ($i = 0; $i < 200; $i++) {
    $cur = $l->remaining();
    if ($cur > $prev) { $ok = false; }
    $prev = $cur;
}
echo "never increases: ", var_export($ok, true), "\n";
$l->release();
rl_del($res);
?>
--EXPECT--
r1 <= 988: true
r1 >= 988 - elapsed - 1: true
r1 > 700: true
decreased by at least the time slept: yes
r2 > 0: true
bool(true)
PTTL <= 1000: 5
bool(true)
bool(false)
int(0)
keys after expiry: 0
drift 0.5: ok
drift 0.25: ok
drift 0: ok
never increases: true
