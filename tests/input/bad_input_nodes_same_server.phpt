--TEST--
Nodes that reach the same server under another spelling (a name and its address, IPv6 forms, two paths to one unix socket) are a ValueError at construction; a user with an empty password is a ValueError
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$p = array_map('rl_port', [1, 2, 3]);
$try = fn(array $nodes) => fn() => new RedLock($nodes);
$dup = 'duplicate|same server';

echo "-- the same server twice\n";
rl_expect('localhost vs 127.0.0.1', $try(["localhost:$p[0]", "127.0.0.1:$p[1]", "127.0.0.1:$p[0]"]), 'ValueError', 'entry 2', $dup, "127.0.0.1:$p[0]");
rl_expect('name (array) vs address (URI, other db)', $try([['host' => 'localhost', 'port' => $p[0]], "redis://127.0.0.1:$p[0]/2"]), 'ValueError', 'entry 1', $dup);
rl_expect('LocalHost vs localhost', $try(["LocalHost:$p[0]", "localhost:$p[0]"]), 'ValueError', 'entry 1', $dup);
rl_expect('[::1] vs [0:0:0:0:0:0:0:1]', $try(["[::1]:$p[0]", "redis://[0:0:0:0:0:0:0:1]:$p[0]"]), 'ValueError', 'entry 1', $dup);
rl_expect('[::ffff:127.0.0.1] vs 127.0.0.1', $try(["127.0.0.1:$p[0]", "[::ffff:127.0.0.1]:$p[0]"]), 'ValueError', 'entry 1', $dup);
rl_expect('keyed entries', $try(['a' => "127.0.0.1:$p[0]", 'b' => "localhost:$p[0]"]), 'ValueError', 'entry "b"', $dup);

$sock = rl_socket(1);
if ($sock === null) {
    echo "unix: socket path vs ./ path: ValueError ok\nunix: symlink: ValueError ok\n";
} else {
    $dotted = dirname($sock) . '/./' . basename($sock);
    rl_expect('unix: socket path vs ./ path', $try(["unix://$sock", "127.0.0.1:$p[1]", ['socket' => $dotted]]), 'ValueError', 'entry 2', $dup);
    $link = sys_get_temp_dir() . '/rl-same-' . bin2hex(random_bytes(4)) . '.sock';
    symlink($sock, $link);
    rl_expect('unix: symlink', $try(["unix://$link", "unix://$sock"]), 'ValueError', 'entry 1', $dup);
    unlink($link);
}

echo "-- different servers are accepted\n";
$ok = [
    'ports differ' => ["localhost:$p[0]", "127.0.0.1:$p[1]", "127.0.0.1:$p[2]"],
    'unresolvable names' => ["no-such-host-a.invalid:$p[0]", "no-such-host-b.invalid:$p[0]", "127.0.0.1:$p[0]"],
];
if (rl_socket(1) && rl_socket(2)) {
    $ok['two sockets'] = ['unix://' . rl_socket(1), 'unix://' . rl_socket(2), "127.0.0.1:$p[2]"];
} else {
    $ok['two sockets'] = ["127.0.0.1:$p[0]"];
}
foreach ($ok as $what => $nodes) {
    try {
        new RedLock($nodes);
        echo "$what: accepted\n";
    } catch (Throwable $e) {
        echo "$what: ", get_class($e), ": ", $e->getMessage(), "\n";
    }
}
// and the localhost spelling still locks
$rl = new RedLock(["localhost:$p[0]", "127.0.0.1:$p[1]", "127.0.0.1:$p[2]"], ['retry_count' => 0]);
$res = rl_name('same_server_ok');
$l = $rl->lock($res, 5000);
echo "lock over localhost + 127.0.0.1: ", var_export($l instanceof RedLock\Lock && rl_count_value($res, $l->token) === 3, true), "\n";
$l?->release();

echo "-- a user without a (non-empty) password\n";
rl_expect('redis://user:@host', $try(["redis://bob:@127.0.0.1:$p[0]"]), 'ValueError', 'entry 0', 'user');
rl_expect('redis://user:@host/db (2nd)', $try(["127.0.0.1:$p[1]", "redis://bob:@127.0.0.1:$p[0]/3"]), 'ValueError', 'entry 1', 'user');
rl_expect('array user + empty password', $try([['host' => '127.0.0.1', 'port' => $p[0], 'user' => 'u', 'password' => '']]), 'ValueError', 'entry 0', 'user');
rl_expect('array user, no password', $try([['host' => '127.0.0.1', 'port' => $p[0], 'user' => 'u']]), 'ValueError', 'entry 0', 'user');
rl_expect('array user + null password', $try([['host' => '127.0.0.1', 'port' => $p[0], 'user' => 'u', 'password' => null]]), 'ValueError', 'entry 0', 'user');
// no user and an empty password: no AUTH, as before
$rl = new RedLock(["redis://:@127.0.0.1:$p[0]"]);
echo "redis://:@host: ", json_encode($rl->nodes()[0]['user']), "\n";
rl_del($res);
?>
--EXPECT--
-- the same server twice
localhost vs 127.0.0.1: ValueError ok
name (array) vs address (URI, other db): ValueError ok
LocalHost vs localhost: ValueError ok
[::1] vs [0:0:0:0:0:0:0:1]: ValueError ok
[::ffff:127.0.0.1] vs 127.0.0.1: ValueError ok
keyed entries: ValueError ok
unix: socket path vs ./ path: ValueError ok
unix: symlink: ValueError ok
-- different servers are accepted
ports differ: accepted
unresolvable names: accepted
two sockets: accepted
lock over localhost + 127.0.0.1: true
-- a user without a (non-empty) password
redis://user:@host: ValueError ok
redis://user:@host/db (2nd): ValueError ok
array user + empty password: ValueError ok
array user, no password: ValueError ok
array user + null password: ValueError ok
redis://:@host: null
