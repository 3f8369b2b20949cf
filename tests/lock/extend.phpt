--TEST--
extend(): token-checked PEXPIRE on a quorum, resets validity and Lock::$ttl
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('extend');
$l = $rl->lock($res, 400);
$before = $rl->stats()['extended'];
usleep(200000);
echo "remaining before < 200: ", var_export($l->remaining() < 200, true), "\n";
var_dump($l->extend(3000));
var_dump($l->ttl);
$r = $l->remaining();
echo "remaining reset: ", ($r > 2500 && $r <= 3000 - 32) ? 'ok' : "bad ($r)", "\n";
echo "PTTL in (2500, 3000]: ", count(array_filter(rl_pttls($res), fn($p) => $p > 2500 && $p <= 3000)), "\n";
echo "extended +", $rl->stats()['extended'] - $before, "\n";
usleep(300000);   // past the original 400 ms
var_dump($l->isValid());
echo "our token on: ", rl_count_value($res, $l->token), "\n";
// shorten
var_dump($l->extend(1000));
var_dump($l->ttl);
echo "PTTL <= 1000: ", count(array_filter(rl_pttls($res), fn($p) => $p > 0 && $p <= 1000)), "\n";
// a bad ttl changes nothing
try { $l->extend(0); } catch (ValueError $e) { echo "extend(0): ValueError\n"; }
var_dump($l->ttl, $l->isValid());
var_dump($l->release());
var_dump($l->extend(1000));
echo "keys: ", rl_count_keys($res), "\n";
rl_del($res);
?>
--EXPECT--
remaining before < 200: true
bool(true)
int(3000)
remaining reset: ok
PTTL in (2500, 3000]: 5
extended +1
bool(true)
our token on: 5
bool(true)
int(1000)
PTTL <= 1000: 5
extend(0): ValueError
int(1000)
bool(true)
bool(true)
bool(false)
keys: 0
