--TEST--
on_lost: bad values are a ValueError (a string other than 'throw') or a TypeError (another type) naming on_lost; the INI entry takes throw or empty only
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
rl_expect('ctor string', fn() => rl_new(['on_lost' => 'strlen']), 'ValueError', 'on_lost');
rl_expect('ctor int', fn() => rl_new(['on_lost' => 1]), 'TypeError', 'on_lost');
rl_expect('ctor true', fn() => rl_new(['on_lost' => true]), 'TypeError', 'on_lost');
rl_expect('ctor array', fn() => rl_new(['on_lost' => ['nope', 'nothing']]), 'TypeError', 'on_lost');
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('lost-bad');
rl_expect('per call string', fn() => $rl->lock($res, 1000, ['on_lost' => 'Throw']), 'ValueError', 'on_lost');
rl_expect('per call object', fn() => $rl->lock($res, 1000, ['on_lost' => new stdClass]), 'TypeError', 'on_lost');
rl_expect('synchronized', fn() => $rl->synchronized($res, 1000, fn() => 1, ['on_lost' => 2.5]), 'TypeError', 'on_lost');
echo "nothing locked: ", rl_count_keys($res), "\n";
// accepted forms
foreach (['throw', null, fn() => 1, 'strrev' => [new ArrayObject, 'count']] as $v) {
    $l = $rl->lock($res, 1000, ['on_lost' => $v]);
    echo get_debug_type($v), ": ", var_export($l instanceof RedLock\Lock && $l->release(), true), "\n";
}
// INI
var_dump(ini_get('redlock.on_lost'));
var_dump(ini_set('redlock.on_lost', 'throw'));
var_dump(ini_get('redlock.on_lost'));
var_dump(ini_set('redlock.on_lost', 'callable'));
var_dump(ini_get('redlock.on_lost'));
// the INI default applies; an explicit null turns it off
$rl2 = rl_new(['retry_count' => 0]);
$l = $rl2->lock($res, 200);
$t0 = hrtime(true);
try { while (rl_ms($t0) < 1500) {} echo "INI throw: nothing\n"; } catch (RedLock\LockLostException $e) { echo "INI throw: LockLostException\n"; }
$l = $rl2->lock($res, 200, ['on_lost' => null]);
$t0 = hrtime(true);
try { while (rl_ms($t0) < 500) {} echo "explicit null: nothing\n"; } catch (RedLock\LockLostException $e) { echo "explicit null: LockLostException\n"; }
var_dump(ini_set('redlock.on_lost', ''));
rl_del($res);
?>
--EXPECTF--
ctor string: ValueError ok
ctor int: TypeError ok
ctor true: TypeError ok
ctor array: TypeError ok
per call string: ValueError ok
per call object: TypeError ok
synchronized: TypeError ok
nothing locked: 0
string: true
null: true
Closure: true
array: true
string(0) ""
string(0) ""
string(5) "throw"

Warning: ini_set(): redlock.on_lost must be "throw" or empty, keeping throw in %s on line %d
bool(false)
string(5) "throw"
INI throw: LockLostException
explicit null: nothing
string(5) "throw"
