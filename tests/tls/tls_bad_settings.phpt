--TEST--
TLS settings: unknown keys, wrong types and files that cannot be read are a ValueError naming the setting (option and node array); the tls option is constructor-only and has no INI entry
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
$ca = rl_tls_file('ca.crt');
$node = 'rediss://127.0.0.1:7001';   // construction must not need a reachable node
$opt = fn(array $tls) => fn() => new RedLock([$node], ['tls' => $tls]);
$arr = fn($tls, array $more = []) => fn() => new RedLock([['host' => '127.0.0.1', 'port' => 7001, 'tls' => $tls] + $more]);
$V = 'ValueError';
$missing = sys_get_temp_dir() . '/redlock-no-such-file-' . getmypid() . '.pem';

// the option
rl_expect('option not an array', fn() => new RedLock([$node], ['tls' => true]), 'TypeError|ValueError', '"tls"');
rl_expect('unknown setting', $opt(['cafle' => $ca]), $V, '"tls"', 'cafle');
rl_expect('list instead of settings', $opt([$ca]), $V, '"tls"', 'string keys');
rl_expect('cafile int', $opt(['cafile' => 1]), $V, '"cafile"', 'string');
rl_expect('cafile array', $opt(['cafile' => [$ca]]), $V, '"cafile"');
rl_expect('cafile missing file', $opt(['cafile' => $missing]), $V, '"cafile"', 'cannot be read', $missing);
rl_expect('cafile a directory', $opt(['cafile' => dirname($ca)]), $V, '"cafile"', 'not a regular file');
rl_expect('cafile empty', $opt(['cafile' => '']), $V, '"cafile"');
rl_expect('cafile NUL', $opt(['cafile' => "$ca\0x"]), $V, '"cafile"', 'NUL');
rl_expect('capath missing', $opt(['capath' => $missing]), $V, '"capath"', 'cannot be read');
rl_expect('capath a file', $opt(['capath' => $ca]), $V, '"capath"');
rl_expect('local_cert missing', $opt(['local_cert' => $missing]), $V, '"local_cert"', 'cannot be read');
rl_expect('local_pk missing', $opt(['local_cert' => rl_tls_file('client.crt'), 'local_pk' => $missing]), $V, '"local_pk"');
rl_expect('verify_peer string', $opt(['verify_peer' => 'yes']), $V, '"verify_peer"', 'bool');
rl_expect('verify_peer int', $opt(['verify_peer' => 1]), $V, '"verify_peer"', 'bool');
rl_expect('verify_peer null', $opt(['verify_peer' => null]), $V, '"verify_peer"', 'bool');
rl_expect('verify_peer_name int', $opt(['verify_peer_name' => 0]), $V, '"verify_peer_name"');
rl_expect('peer_name empty', $opt(['peer_name' => '']), $V, '"peer_name"');
rl_expect('peer_name too long', $opt(['peer_name' => str_repeat('a', 256)]), $V, '"peer_name"');
rl_expect('peer_name int', $opt(['peer_name' => 5]), $V, '"peer_name"');
rl_expect('passphrase int', $opt(['passphrase' => 1234]), $V, '"passphrase"');
rl_expect('passphrase too long', $opt(['passphrase' => str_repeat('p', 1024)]), $V, '"passphrase"');
rl_expect('per call', fn() => (new RedLock([$node], rl_tls_opts()))->lock('x', 1000, ['tls' => []]), $V, '"tls"', 'constructor');

// a node's 'tls' array: the same rules, naming the entry too
rl_expect('node tls string', $arr('yes'), 'TypeError|ValueError', 'entry 0', '"tls"');
rl_expect('node tls int', $arr(1), 'TypeError|ValueError', 'entry 0', '"tls"');
rl_expect('node unknown setting', $arr(['verify' => false]), $V, 'entry 0', '"tls"', 'verify');
rl_expect('node cafile missing', $arr(['cafile' => $missing]), $V, 'entry 0', '"cafile"', 'cannot be read');
rl_expect('node verify_peer_name string', $arr(['verify_peer_name' => 'no']), $V, 'entry 0', '"verify_peer_name"');
rl_expect('named entry', fn() => new RedLock(['a' => ['host' => '127.0.0.1', 'port' => 7001, 'tls' => ['capath' => $missing]]]),
    $V, 'entry "a"', '"capath"');
rl_expect('unix socket', fn() => new RedLock([['socket' => '/tmp/redlock-x.sock', 'tls' => true]]), $V, 'entry 0', 'tls', 'unix socket');
// a key or a passphrase without the certificate they belong to
rl_expect('local_pk alone', $arr(['local_pk' => rl_tls_file('client.key')]), $V, 'entry 0', '"local_pk"', '"local_cert"');
rl_expect('passphrase alone', fn() => new RedLock([$node], ['tls' => ['passphrase' => 'Pp-s3cret-42']]), $V, '"passphrase"', '"local_cert"');
// ... but they may come from the option and the node together
$rl = new RedLock([['host' => '127.0.0.1', 'port' => 7001, 'tls' => ['local_cert' => rl_tls_file('client.crt')]]],
    ['tls' => ['local_pk' => rl_tls_file('client-enc.key'), 'passphrase' => 'Pp-s3cret-42']]);
echo "option + node settings combined: ", json_encode(array_column($rl->nodes(), 'tls')), "\n";
// a node's null takes a setting of the option back to its default
$rl = new RedLock([['host' => '127.0.0.1', 'port' => 7001, 'tls' => ['local_cert' => null, 'local_pk' => null]]],
    ['tls' => ['local_cert' => rl_tls_file('client.crt'), 'local_pk' => rl_tls_file('client.key')]]);
echo "null setting accepted\n";

// what is accepted: every setting, relative paths (resolved now), the option without TLS nodes
$cwd = getcwd();
chdir(dirname($ca));
$rl = new RedLock([$node], ['tls' => ['cafile' => 'ca.crt', 'capath' => '.', 'local_cert' => 'client.crt',
    'local_pk' => 'client-enc.key', 'passphrase' => 'x', 'verify_peer' => true, 'verify_peer_name' => false, 'peer_name' => 'localhost']]);
chdir($cwd);
echo "all settings: ", json_encode($rl->nodes()[0]), "\n";
$rl = new RedLock(['127.0.0.1:7001'], rl_tls_opts());
echo "option, plain node: ", json_encode($rl->nodes()[0]['tls']), "\n";

// no INI entry
var_dump(ini_get('redlock.tls'));
var_dump(@ini_set('redlock.tls', '1'));
echo "no warning so far\n";
?>
--EXPECT--
option not an array: TypeError|ValueError ok
unknown setting: ValueError ok
list instead of settings: ValueError ok
cafile int: ValueError ok
cafile array: ValueError ok
cafile missing file: ValueError ok
cafile a directory: ValueError ok
cafile empty: ValueError ok
cafile NUL: ValueError ok
capath missing: ValueError ok
capath a file: ValueError ok
local_cert missing: ValueError ok
local_pk missing: ValueError ok
verify_peer string: ValueError ok
verify_peer int: ValueError ok
verify_peer null: ValueError ok
verify_peer_name int: ValueError ok
peer_name empty: ValueError ok
peer_name too long: ValueError ok
peer_name int: ValueError ok
passphrase int: ValueError ok
passphrase too long: ValueError ok
per call: ValueError ok
node tls string: TypeError|ValueError ok
node tls int: TypeError|ValueError ok
node unknown setting: ValueError ok
node cafile missing: ValueError ok
node verify_peer_name string: ValueError ok
named entry: ValueError ok
unix socket: ValueError ok
local_pk alone: ValueError ok
passphrase alone: ValueError ok
option + node settings combined: [true]
null setting accepted
all settings: {"name":"127.0.0.1:7001","host":"127.0.0.1","port":7001,"socket":null,"database":0,"user":null,"tls":true}
option, plain node: false
bool(false)
bool(false)
no warning so far
