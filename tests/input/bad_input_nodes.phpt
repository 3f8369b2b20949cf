--TEST--
Bad $nodes: ValueError/TypeError naming the entry and the field, never a warning
--EXTENSIONS--
redlock
--SKIPIF--
<?php if (!extension_loaded('redlock')) die('skip redlock not loaded'); ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$ok = '127.0.0.1:7001';    // construction must not need a reachable node
$try = fn(array $nodes) => fn() => new RedLock($nodes);
$TV = 'TypeError|ValueError';

rl_expect('empty list', $try([]), 'ValueError', '$nodes');
rl_expect('int entry', $try([$ok, 123]), $TV, '$nodes', 'entry');
rl_expect('null entry', $try([$ok, null]), $TV, '$nodes', 'entry');
rl_expect('object entry', $try([$ok, new stdClass]), $TV, '$nodes', 'entry');
rl_expect('nested list entry', $try([$ok, [['host' => '127.0.0.1', 'port' => 7002]]]), $TV, '$nodes', 'entry');
rl_expect('host int', $try([$ok, ['host' => 123, 'port' => 7002]]), $TV, 'entry', 'host');
rl_expect('host array', $try([$ok, ['host' => ['127.0.0.1'], 'port' => 7002]]), $TV, 'entry', 'host');
rl_expect('host with NUL', $try([$ok, ['host' => "127.0.0.1\0evil", 'port' => 7002]]), 'ValueError', 'entry', 'host');
rl_expect('host empty', $try([$ok, ['host' => '', 'port' => 7002]]), 'ValueError', 'entry', 'host');
rl_expect('host missing', $try([$ok, ['port' => 7002]]), 'ValueError', 'entry', 'host');
rl_expect('port 0', $try([$ok, ['host' => '127.0.0.1', 'port' => 0]]), 'ValueError', 'entry', 'port');
rl_expect('port 65536', $try([$ok, ['host' => '127.0.0.1', 'port' => 65536]]), 'ValueError', 'entry', 'port');
rl_expect('port -1', $try([$ok, ['host' => '127.0.0.1', 'port' => -1]]), 'ValueError', 'entry', 'port');
rl_expect('port string', $try([$ok, ['host' => '127.0.0.1', 'port' => 'abc']]), $TV, 'entry', 'port');
rl_expect('port float', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002.5]]), $TV, 'entry', 'port');
rl_expect('unknown key', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002, 'hots' => 'x']]), 'ValueError', 'entry', 'hots');
rl_expect('timeout 0', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002, 'timeout' => 0]]), 'ValueError', 'entry', 'timeout');
rl_expect('timeout 60001', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002, 'timeout' => 60001]]), 'ValueError', 'entry', 'timeout');
rl_expect('timeout -1', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002, 'timeout' => -1]]), 'ValueError', 'entry', 'timeout');
rl_expect('database -1', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002, 'database' => -1]]), 'ValueError', 'entry', 'database');
rl_expect('database string', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002, 'database' => 'x']]), $TV, 'entry', 'database');
rl_expect('user int', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002, 'user' => 12]]), $TV, 'entry', 'user');
rl_expect('password array', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002, 'password' => []]]), $TV, 'entry', 'password');
rl_expect('tls string', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002, 'tls' => 'yes']]), $TV, 'entry', 'tls');
rl_expect('tls int', $try([$ok, ['host' => '127.0.0.1', 'port' => 7002, 'tls' => 1]]), $TV, 'entry', 'tls');
// the TLS settings (and TLS in a build without it): tests/tls/
rl_expect('uri port 0', $try([$ok, 'redis://127.0.0.1:0']), 'ValueError', 'entry', 'port');
rl_expect('uri port 65536', $try([$ok, 'redis://127.0.0.1:65536']), 'ValueError', 'entry', 'port');
rl_expect('host:port 0', $try([$ok, '127.0.0.1:0']), 'ValueError', 'entry', 'port');
rl_expect('host:port 65536', $try([$ok, '127.0.0.1:65536']), 'ValueError', 'entry', 'port');
rl_expect('host:port huge', $try([$ok, '127.0.0.1:99999999999999999999']), 'ValueError', 'entry', 'port');
rl_expect('host:port not a number', $try([$ok, '127.0.0.1:abc']), 'ValueError', 'entry');
rl_expect('empty string', $try([$ok, '']), 'ValueError', 'entry');
rl_expect('unknown scheme', $try([$ok, 'http://127.0.0.1:7002']), 'ValueError', 'entry');
rl_expect('scheme only', $try([$ok, 'redis://']), 'ValueError', 'entry');
rl_expect('bad database', $try([$ok, 'redis://127.0.0.1:7002/abc']), 'ValueError', 'entry');
rl_expect('NUL in uri', $try([$ok, "redis://127.0.0.1:7002\0/0"]), 'ValueError', 'entry');
rl_expect('empty unix path', $try([$ok, 'unix://']), 'ValueError', 'entry');
rl_expect('dup same string', $try([$ok, '127.0.0.1:7002', $ok]), 'ValueError', 'entry', 'duplicate|twice|same');
rl_expect('dup string + array', $try(['127.0.0.1:6379', ['host' => '127.0.0.1', 'port' => 6379]]), 'ValueError', 'entry', 'duplicate|twice|same');
rl_expect('dup string + uri', $try(['127.0.0.1:6379', 'redis://127.0.0.1:6379/0']), 'ValueError', 'entry', 'duplicate|twice|same');
rl_expect('dup array + uri /0', $try([['host' => '127.0.0.1', 'port' => 6379], '127.0.0.1:7002', 'redis://127.0.0.1:6379/0']), 'ValueError', 'entry', 'duplicate|twice|same');
rl_expect('dup default port', $try(['redis://127.0.0.1', '127.0.0.1:6379']), 'ValueError', 'entry', 'duplicate|twice|same');
rl_expect('dup unix', $try(['unix:///tmp/rl-x.sock', 'unix:///tmp/rl-x.sock']), 'ValueError', 'entry', 'duplicate|twice|same');

// a password in the URI never appears in the message
foreach ([
    "redis://alice:Pw0rdSecret@127.0.0.1:0",
    "redis://alice:Pw0rdSecret@127.0.0.1:abc",
    "redis://alice:Pw0rdSecret@127.0.0.1:7002/notadb",
    "redis://alice:Pw0rdSecret@:7002",
    "rediss://alice:Pw0rdSecret@127.0.0.1:99999",
    "http://alice:Pw0rdSecret@127.0.0.1:7002",
] as $uri) {
    try {
        new RedLock([$ok, $uri]);
        echo "no exception\n";
    } catch (ValueError $e) {
        echo "password hidden: ", str_contains($e->getMessage(), 'Pw0rdSecret') ? "NO: " . $e->getMessage() : 'yes', "\n";
    }
}
try {
    new RedLock(['redis://alice:Pw0rdSecret@127.0.0.1:7002', 'redis://bob:Pw0rdSecret@127.0.0.1:7002']);
    echo "no exception\n";
} catch (ValueError $e) {
    echo "dup with password hidden: ", str_contains($e->getMessage(), 'Pw0rdSecret') ? "NO: " . $e->getMessage() : 'yes', "\n";
}
try {
    new RedLock([['host' => '127.0.0.1', 'port' => 0, 'password' => 'Pw0rdSecret']]);
} catch (ValueError $e) {
    echo "array password hidden: ", str_contains($e->getMessage(), 'Pw0rdSecret') ? "NO: " . $e->getMessage() : 'yes', "\n";
}

// valid forms, for contrast
new RedLock(['127.0.0.1:7001']);
new RedLock(['127.0.0.1:7001', 'redis://127.0.0.1:7002', 'redis://u:p@127.0.0.1:7003/1', ['host' => '127.0.0.1', 'port' => 7004], 'unix:///tmp/rl-x.sock']);
new RedLock([['host' => '127.0.0.1', 'port' => 1], ['host' => '127.0.0.1', 'port' => 65535, 'timeout' => 60000], ['host' => '127.0.0.1', 'port' => 7005, 'timeout' => 1, 'tls' => false, 'database' => 15, 'user' => 'u', 'password' => 'p']]);
echo "valid forms accepted\n";
?>
--EXPECT--
empty list: ValueError ok
int entry: TypeError|ValueError ok
null entry: TypeError|ValueError ok
object entry: TypeError|ValueError ok
nested list entry: TypeError|ValueError ok
host int: TypeError|ValueError ok
host array: TypeError|ValueError ok
host with NUL: ValueError ok
host empty: ValueError ok
host missing: ValueError ok
port 0: ValueError ok
port 65536: ValueError ok
port -1: ValueError ok
port string: TypeError|ValueError ok
port float: TypeError|ValueError ok
unknown key: ValueError ok
timeout 0: ValueError ok
timeout 60001: ValueError ok
timeout -1: ValueError ok
database -1: ValueError ok
database string: TypeError|ValueError ok
user int: TypeError|ValueError ok
password array: TypeError|ValueError ok
tls string: TypeError|ValueError ok
tls int: TypeError|ValueError ok
uri port 0: ValueError ok
uri port 65536: ValueError ok
host:port 0: ValueError ok
host:port 65536: ValueError ok
host:port huge: ValueError ok
host:port not a number: ValueError ok
empty string: ValueError ok
unknown scheme: ValueError ok
scheme only: ValueError ok
bad database: ValueError ok
NUL in uri: ValueError ok
empty unix path: ValueError ok
dup same string: ValueError ok
dup string + array: ValueError ok
dup string + uri: ValueError ok
dup array + uri /0: ValueError ok
dup default port: ValueError ok
dup unix: ValueError ok
password hidden: yes
password hidden: yes
password hidden: yes
password hidden: yes
password hidden: yes
password hidden: yes
dup with password hidden: yes
array password hidden: yes
valid forms accepted
