--TEST--
Restore: the per-call 'token' option (16..128 bytes, no NUL; a \ValueError in the constructor), and restore()'s $token limits
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$nodes = rl_nodes();
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('token_option');

echo "-- constructor\n";
rl_expect('token in constructor', fn() => new RedLock($nodes, ['token' => str_repeat('a', 40)]), 'ValueError', '$options', 'token', 'per-call');
echo "INI entry: ", var_export(ini_get('redlock.token'), true), "\n";

echo "-- per call\n";
rl_expect('15 bytes', fn() => $rl->lock($res, 1000, ['token' => str_repeat('a', 15)]), 'ValueError', 'token', '16', '128');
rl_expect('129 bytes', fn() => $rl->lock($res, 1000, ['token' => str_repeat('a', 129)]), 'ValueError', 'token', '16', '128');
rl_expect('empty', fn() => $rl->lock($res, 1000, ['token' => '']), 'ValueError', 'token');
rl_expect('NUL', fn() => $rl->lock($res, 1000, ['token' => str_repeat('a', 20) . "\0b"]), 'ValueError', 'token', 'NUL');
rl_expect('int', fn() => $rl->lock($res, 1000, ['token' => 1234567890123456789]), 'TypeError|ValueError', 'token');
rl_expect('null', fn() => $rl->lock($res, 1000, ['token' => null]), 'TypeError|ValueError', 'token');
rl_expect('synchronized 15 bytes', fn() => $rl->synchronized($res, 1000, fn() => 1, ['token' => str_repeat('a', 15)]), 'ValueError', 'token');
echo "keys after refused calls: ", rl_count_keys($res), "\n";

foreach ([16, 40, 128] as $len) {
    $tok = substr(str_repeat('0123456789abcdefghijklmnopqrstuvwxyz', 4), 0, $len);
    $l = $rl->lock($res, 5000, ['token' => $tok]);
    echo "$len bytes: ", $l instanceof RedLock\Lock ? 'acquired' : 'null',
        ", \$token same: ", var_export($l->token === $tok, true),
        ", nodes holding it: ", rl_count_value($res, $tok),
        ", isHeld: ", var_export($l->isHeld(), true), "\n";
    // a second lock() with the same token is a conflict like any other (not reentrant)
    // ... and that failed attempt leaves our lock alone (its cleanup spares the nodes that refused)
    echo "  same token again: ", var_export($rl->lock($res, 5000, ['token' => $tok]), true),
        ", nodes still holding it: ", rl_count_value($res, $tok), "\n";
    var_dump($l->release());
}

// binary bytes (no NUL) are fine; they are stored as given
$bin = "\x01\xff\x80 tok\twith\xc3\xa9 bytes\n";
$l = $rl->lock($res, 5000, ['token' => $bin]);
echo "binary: nodes holding it: ", rl_count_value($res, $bin), ", isHeld: ", var_export($l->isHeld(), true),
    ", release: ", var_export($l->release(), true), ", keys: ", rl_count_keys($res), "\n";

// synchronized() passes the token through too
$tok = 'synchronized-token-' . bin2hex(random_bytes(4));
echo "synchronized: ", $rl->synchronized($res, 5000, fn(RedLock\Lock $l) => $l->token === $tok && rl_count_value($l->resource, $tok) === 5 ? 'held with our token' : 'wrong', ['token' => $tok]), ", keys after: ", rl_count_keys($res), "\n";

// a caller's token is still auto-released at request end (acquired by this process)
[$rc, $out] = rl_php_child('$l = rl_new()->lock(' . var_export($res, true) . ', 60000, ["token" => "child-token-0123456789"]); echo rl_count_value($l->resource, "child-token-0123456789"), "\n";');
echo "child held: $out, keys after the child ended: ", rl_count_keys($res), "\n";

echo "-- restore()\n";
rl_expect('restore 15 bytes', fn() => $rl->restore($res, str_repeat('a', 15)), 'ValueError', '$token', '16', '128');
rl_expect('restore 129 bytes', fn() => $rl->restore($res, str_repeat('a', 129)), 'ValueError', '$token', '16', '128');
rl_expect('restore NUL', fn() => $rl->restore($res, str_repeat('a', 20) . "\0"), 'ValueError', '$token', 'NUL');
rl_expect('restore empty resource', fn() => $rl->restore('', str_repeat('a', 20)), 'ValueError', '$resource');
rl_expect('restore resource 513 bytes', fn() => $rl->restore(str_repeat('r', 513), str_repeat('a', 20)), 'ValueError', '$resource');
rl_expect('restore resource NUL', fn() => $rl->restore("a\0b", str_repeat('a', 20)), 'ValueError', '$resource');
echo "restore 16 and 128 bytes: ", get_class($rl->restore($res, str_repeat('a', 16))), ' ', get_class($rl->restore($res, str_repeat('a', 128))), "\n";
rl_del($res);
?>
--EXPECT--
-- constructor
token in constructor: ValueError ok
INI entry: false
-- per call
15 bytes: ValueError ok
129 bytes: ValueError ok
empty: ValueError ok
NUL: ValueError ok
int: TypeError|ValueError ok
null: TypeError|ValueError ok
synchronized 15 bytes: ValueError ok
keys after refused calls: 0
16 bytes: acquired, $token same: true, nodes holding it: 5, isHeld: true
  same token again: NULL, nodes still holding it: 5
bool(true)
40 bytes: acquired, $token same: true, nodes holding it: 5, isHeld: true
  same token again: NULL, nodes still holding it: 5
bool(true)
128 bytes: acquired, $token same: true, nodes holding it: 5, isHeld: true
  same token again: NULL, nodes still holding it: 5
bool(true)
binary: nodes holding it: 5, isHeld: true, release: true, keys: 0
synchronized: held with our token, keys after: 0
child held: 5, keys after the child ended: 0
-- restore()
restore 15 bytes: ValueError ok
restore 129 bytes: ValueError ok
restore NUL: ValueError ok
restore empty resource: ValueError ok
restore resource 513 bytes: ValueError ok
restore resource NUL: ValueError ok
restore 16 and 128 bytes: RedLock\Lock RedLock\Lock
