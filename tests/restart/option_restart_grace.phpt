--TEST--
restart_grace: 'auto' (the default), an int of ms >= 0; constructor and INI only; bad values are a ValueError naming restart_grace
--EXTENSIONS--
redlock
--INI--
redlock.restart_grace=auto
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
echo "INI default: ", ini_get('redlock.restart_grace'), "\n";
foreach (['auto', 0, 1, 60000, PHP_INT_MAX >> 33] as $v) {
    new RedLock(rl_nodes(), ['restart_grace' => $v]);
    echo "accepted: ", var_export($v, true), "\n";
}
foreach ([-1, 'AUTO', 'off', '1000', 1.5, true, null, [], PHP_INT_MAX] as $v) {
    rl_expect('ctor ' . json_encode($v), fn() => new RedLock(rl_nodes(), ['restart_grace' => $v]), 'ValueError', 'restart_grace');
}
$rl = rl_new();
rl_expect('per call', fn() => $rl->lock(rl_name('opt'), 1000, ['restart_grace' => 0]), 'ValueError', 'restart_grace');
// INI: 'auto' or ms; anything else keeps the previous value, with a warning
foreach (['1500', '0', 'auto', '-5', 'x', '', '99999999999'] as $v) {
    $ok = @ini_set('redlock.restart_grace', $v);
    echo "ini ", var_export($v, true), ": ", $ok === false ? 'refused' : 'set', ", now ", ini_get('redlock.restart_grace'), "\n";
}
ini_set('redlock.restart_grace', '0');
// the INI default applies to new objects: with 0 no maxttl key is written
$p = rl_name('opt') . ':';
$l = (new RedLock(rl_nodes(), ['prefix' => $p]))->lock('r', 1000);
echo "ini 0: maxttl keys ", rl_count_keys($p . "\0redlock:maxttl"), "\n";
$l->release();
ini_set('redlock.restart_grace', 'auto');
$l = (new RedLock(rl_nodes(), ['prefix' => $p]))->lock('r', 1000);
echo "ini auto: maxttl keys ", rl_count_keys($p . "\0redlock:maxttl"), "\n";
$l->release();
rl_del($p . 'r', $p . "\0redlock:maxttl");
?>
--EXPECT--
INI default: auto
accepted: 'auto'
accepted: 0
accepted: 1
accepted: 60000
accepted: 1073741823
ctor -1: ValueError ok
ctor "AUTO": ValueError ok
ctor "off": ValueError ok
ctor "1000": ValueError ok
ctor 1.5: ValueError ok
ctor true: ValueError ok
ctor null: ValueError ok
ctor []: ValueError ok
ctor 9223372036854775807: ValueError ok
per call: ValueError ok
ini '1500': set, now 1500
ini '0': set, now 0
ini 'auto': set, now auto
ini '-5': refused, now auto
ini 'x': refused, now auto
ini '': refused, now auto
ini '99999999999': refused, now auto
ini 0: maxttl keys 0
ini auto: maxttl keys 5
