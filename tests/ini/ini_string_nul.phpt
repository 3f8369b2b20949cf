--TEST--
INI: a string entry (redlock.prefix) with a NUL byte is refused with a warning and the previous value kept (it was kept as a C string: "a\0b" became "a")
--EXTENSIONS--
redlock
--INI--
redlock.prefix=app:
--FILE--
<?php
var_dump(ini_set('redlock.prefix', "a\0b"));
var_dump(ini_get('redlock.prefix'));
var_dump(ini_set('redlock.prefix', "ok:"), ini_get('redlock.prefix'));
?>
--EXPECTF--
Warning: ini_set(): redlock.prefix must not contain NUL bytes, keeping "app:" in %s on line %d
bool(false)
string(4) "app:"
string(4) "app:"
string(3) "ok:"
