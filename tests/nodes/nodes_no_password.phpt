--TEST--
nodes(): normalised list without any password; passwords never appear in var_dump, print_r, stats() or messages
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$p = array_map('rl_port', [1, 2, 3, 4, 5]);
$nodes = [
    "redis://al%69ce:S3cr%40tUriPw@127.0.0.1:$p[0]/2",
    ['host' => '127.0.0.1', 'port' => $p[1], 'user' => 'bob', 'password' => 'ArrayPwHunter2', 'database' => 1, 'timeout' => 100],
    "redis://:OnlyPwNoUser@127.0.0.1:$p[2]",
    "127.0.0.1:$p[3]",
    "redis://127.0.0.1:$p[4]",
];
$secrets = ['S3cr@tUriPw', 'S3cr%40tUriPw', 'ArrayPwHunter2', 'OnlyPwNoUser'];
$rl = new RedLock($nodes, ['retry_count' => 0]);
$list = $rl->nodes();
foreach ($list as $i => $n) {
    $n['name'] = str_replace((string) $p[$i], 'PORT', $n['name']);
    $n['port'] = $n['port'] === $p[$i] ? 'PORT' : $n['port'];
    echo json_encode($n), "\n";
}
var_dump(array_is_list($list));

function leaks(string $where, string $text): void {
    global $secrets;
    foreach ($secrets as $s) {
        if (str_contains($text, $s)) {
            echo "LEAK in $where: $s\n";
            return;
        }
    }
    echo "$where: clean\n";
}
ob_start(); var_dump($rl); leaks('var_dump', ob_get_clean());
leaks('print_r', print_r($rl, true));
leaks('var_export', var_export($rl, true));
ob_start(); debug_zval_dump($rl); leaks('debug_zval_dump', ob_get_clean());
leaks('(array) cast', print_r((array) $rl, true));
leaks('json nodes()', json_encode($list));
leaks('serialize nodes()', serialize($list));

// the passwords are wrong (these nodes have no auth): 3 of 5 nodes fail -> QuorumException
try {
    $rl->lock(rl_name('nodes_no_password'), 1000);
    echo "no exception\n";
} catch (RedLock\QuorumException $e) {
    leaks('QuorumException', $e->getMessage() . $e->getTraceAsString() . (string) $e);
}
leaks('stats()', print_r($rl->stats(), true));
ob_start(); phpinfo(INFO_MODULES); leaks('phpinfo', ob_get_clean());
?>
--EXPECT--
{"name":"127.0.0.1:PORT","host":"127.0.0.1","port":"PORT","socket":null,"database":2,"user":"alice","tls":false}
{"name":"127.0.0.1:PORT","host":"127.0.0.1","port":"PORT","socket":null,"database":1,"user":"bob","tls":false}
{"name":"127.0.0.1:PORT","host":"127.0.0.1","port":"PORT","socket":null,"database":0,"user":null,"tls":false}
{"name":"127.0.0.1:PORT","host":"127.0.0.1","port":"PORT","socket":null,"database":0,"user":null,"tls":false}
{"name":"127.0.0.1:PORT","host":"127.0.0.1","port":"PORT","socket":null,"database":0,"user":null,"tls":false}
bool(true)
var_dump: clean
print_r: clean
var_export: clean
debug_zval_dump: clean
(array) cast: clean
json nodes(): clean
serialize nodes(): clean
QuorumException: clean
stats(): clean
phpinfo: clean
