--TEST--
auto_extend and max_hold: INI defaults (redlock.auto_extend, redlock.max_hold), constructor and per-call options, bad values, stats() and extend() by hand
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
echo "redlock.auto_extend: ", var_export(ini_get('redlock.auto_extend'), true), "\n";
echo "redlock.max_hold: ", var_export(ini_get('redlock.max_hold'), true), "\n";
$res = rl_name('opts');
$rl = rl_new(['retry_count' => 0]);
echo "auto_extended in stats(): ", var_export(is_int($rl->stats()['auto_extended']), true), "\n";

// default off: a 300 ms lock expires
$l = $rl->lock($res, 300);
usleep(450000);
echo "default: valid after 450 ms (ttl 300): ", var_export($l->isValid(), true), "\n";
$l->release();

// on from INI, off per call, on from the constructor
ini_set('redlock.auto_extend', '1');
$l = rl_new(['retry_count' => 0])->lock($res, 300);
$o = rl_new(['retry_count' => 0])->lock($res . ':off', 300, ['auto_extend' => false]);
usleep(450000);
echo "INI on: ", var_export($l->isValid(), true), ", per call off: ", var_export($o->isValid(), true), "\n";
$l->release();
$o->release();
ini_set('redlock.auto_extend', '0');
$c = rl_new(['retry_count' => 0, 'auto_extend' => true, 'max_hold' => 400]);
$l = $c->lock($res, 300);
usleep(450000);
echo "constructor on: ", var_export($l->isValid(), true), "\n";
usleep(450000);
echo "constructor max_hold 400: ", var_export($l->isValid(), true), "\n";
$l->release();

// extend() by hand on a watched lock: the watchdog goes on with the new ttl
$l = $rl->lock($res, 300, ['auto_extend' => true]);
var_dump($l->extend(2000));
echo "ttl: ", $l->ttl, ", remaining > 1500: ", var_export($l->remaining() > 1500, true), "\n";
usleep(800000);
$p = rl_pttls($res);
echo "the watchdog extends by the new ttl: ", var_export(min($p) > 1000, true), "\n";
$l->release();

// bad values
rl_expect('auto_extend string', fn() => $rl->lock($res, 300, ['auto_extend' => 'yes']), 'TypeError', 'auto_extend');
rl_expect('max_hold float', fn() => $rl->lock($res, 300, ['max_hold' => 1.5]), 'TypeError', 'max_hold');
rl_expect('max_hold negative', fn() => new RedLock(rl_nodes(), ['max_hold' => -5]), 'ValueError', 'max_hold');
var_dump(ini_set('redlock.max_hold', '-1'));
echo "redlock.max_hold kept: ", ini_get('redlock.max_hold'), "\n";
echo "keys left: ", rl_count_keys($res) + rl_count_keys($res . ':off'), "\n";
?>
--EXPECTF--
redlock.auto_extend: '0'
redlock.max_hold: '0'
auto_extended in stats(): true
default: valid after 450 ms (ttl 300): false
INI on: true, per call off: false
constructor on: true
constructor max_hold 400: false
bool(true)
ttl: 2000, remaining > 1500: true
the watchdog extends by the new ttl: true
auto_extend string: TypeError ok
max_hold float: TypeError ok
max_hold negative: ValueError ok

Warning: ini_set(): redlock.max_hold must be an integer between 0 and %d, keeping 0 in %s on line %d
bool(false)
redlock.max_hold kept: 0
keys left: 0
