--TEST--
Bad input: a node's user or password past its limit (4096, 65536 bytes; decoded, in a URI) is a ValueError naming the field, never showing the password (not "out of memory" at every connect)
--EXTENSIONS--
redlock
--SKIPIF--
<?php if (!extension_loaded('redlock')) die('skip redlock not loaded'); ?>
--INI--
memory_limit=512M
--FILE--
<?php
require __DIR__ . '/../config.inc';
// Nothing here reaches a node: every case is refused before any connection.
$ok = '127.0.0.1:7001';

// sizes: on 574973c a 20 MB password was accepted here and every connect failed with "out of memory"
$big = str_repeat('p', 20 << 20);
rl_expect('20 MB password (array)', fn() => new RedLock([['host' => '127.0.0.1', 'port' => 7001, 'password' => $big]]), 'ValueError', 'entry 0', '"password" must be at most 65536 bytes');
rl_expect('20 MB password (URI)', fn() => new RedLock(["redis://:$big@127.0.0.1:7001"]), 'ValueError', 'entry 0', 'password is longer than 65536 bytes');
rl_expect('20 MB user (array)', fn() => new RedLock([['host' => '127.0.0.1', 'port' => 7001, 'user' => $big, 'password' => 'p']]), 'ValueError', 'entry 0', '"user" must be at most 4096 bytes');
rl_expect('20 MB user (URI)', fn() => new RedLock(["redis://$big:p@127.0.0.1:7001"]), 'ValueError', 'entry 0', 'user is longer than 4096 bytes');
// percent-encoded: the limit is the decoded password's
$enc = str_repeat('%41', 65537);
rl_expect('65537 bytes percent-encoded (URI)', fn() => new RedLock(["redis://:$enc@127.0.0.1:7001"]), 'ValueError', 'password is longer than 65536 bytes');
unset($big);
$max = str_repeat('q', 65536);
new RedLock([['host' => '127.0.0.1', 'port' => 7001, 'password' => $max], "redis://u:" . str_repeat('%41', 65536) . "@127.0.0.1:7002", ['host' => '127.0.0.1', 'port' => 7003, 'user' => str_repeat('u', 4096), 'password' => 'p']]);
echo "65536-byte passwords and a 4096-byte user accepted\n";
$e = null;
try { new RedLock(["redis://:" . str_repeat('Sekret-', 20000) . "@127.0.0.1:7001"]); } catch (ValueError $e) {}
echo "password hidden: ", $e && !str_contains($e->getMessage(), 'Sekret') ? 'yes' : 'NO', "\n";
?>
--EXPECT--
20 MB password (array): ValueError ok
20 MB password (URI): ValueError ok
20 MB user (array): ValueError ok
20 MB user (URI): ValueError ok
65537 bytes percent-encoded (URI): ValueError ok
65536-byte passwords and a 4096-byte user accepted
password hidden: yes
