--TEST--
INI: a bad redlock.* value is refused with a warning (at startup and by ini_set) and the previous value kept
--EXTENSIONS--
redlock
--INI--
display_startup_errors=1
redlock.retry_count=abc
redlock.drift_factor=2
redlock.timeout=0
--FILE--
<?php
var_dump(ini_get('redlock.retry_count'), ini_get('redlock.drift_factor'), ini_get('redlock.timeout'));
var_dump(ini_set('redlock.retry_count', '10001'));
var_dump(ini_get('redlock.retry_count'));
var_dump(ini_set('redlock.retry_count', '7') !== false, ini_get('redlock.retry_count'));
// fencing is a plain boolean now: accepted
var_dump(ini_set('redlock.fencing', '1'), ini_get('redlock.fencing'));
?>
--EXPECTF--
%AWarning: PHP Startup: redlock.retry_count must be an integer between 0 and 10000, keeping the default in %s
%AWarning: PHP Startup: redlock.drift_factor must be a number in [0, 1), keeping the default in %s
%AWarning: PHP Startup: redlock.timeout must be an integer between 1 and 60000, keeping the default in %s
string(1) "3"
string(4) "0.01"
string(2) "50"

Warning: ini_set(): redlock.retry_count must be an integer between 0 and 10000, keeping 3 in %s on line %d
bool(false)
string(1) "3"
bool(true)
string(1) "7"
string(1) "0"
string(1) "1"
