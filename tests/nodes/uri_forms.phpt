--TEST--
Node forms: redis:// URI, host:port, redis://.../0, array, unix:// socket -- all lock the same way
--EXTENSIONS--
redlock
--SKIPIF--
<?php
require __DIR__ . '/../skipif.inc';
if (rl_socket(5) === null) die('skip node 5 has no unix socket');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$p = array_map('rl_port', [1, 2, 3, 4, 5]);
$sock = rl_socket(5);
$rl = new RedLock([
    "redis://127.0.0.1:$p[0]",
    "127.0.0.1:$p[1]",
    "redis://127.0.0.1:$p[2]/0",
    ['host' => '127.0.0.1', 'port' => $p[3], 'timeout' => 200, 'database' => 0, 'tls' => false],
    "unix://$sock",
], ['retry_count' => 0]);
foreach ($rl->nodes() as $i => $n) {
    echo strtr(json_encode($n, JSON_UNESCAPED_SLASHES), [(string) $p[$i] => 'PORT', $sock => 'SOCK']), "\n";
}
$res = rl_name('uri_forms');
$l = $rl->lock($res, 5000);
echo "ours on: ", rl_count_value($res, $l->token), "\n";
var_dump($rl->isLocked($res));
$stats = $rl->stats()['nodes'];
echo "stats keyed by name: ", count(array_filter($rl->nodes(), fn($n) => isset($stats[$n['name']]))), "\n";
var_dump(isset($rl->stats()['nodes']["unix:$sock"]));
var_dump($l->release());
echo "keys: ", rl_count_keys($res), "\n";
// the socket node alone is a 1-node RedLock with quorum 1
$one = new RedLock(["unix://$sock"], ['retry_count' => 0]);
$l = $one->lock($res, 5000);
var_dump($one->quorum(), rl_redis("unix:$sock")->get($res) === $l->token);
$l->release();
rl_del($res);
?>
--EXPECT--
{"name":"127.0.0.1:PORT","host":"127.0.0.1","port":PORT,"socket":null,"database":0,"user":null,"tls":false}
{"name":"127.0.0.1:PORT","host":"127.0.0.1","port":PORT,"socket":null,"database":0,"user":null,"tls":false}
{"name":"127.0.0.1:PORT","host":"127.0.0.1","port":PORT,"socket":null,"database":0,"user":null,"tls":false}
{"name":"127.0.0.1:PORT","host":"127.0.0.1","port":PORT,"socket":null,"database":0,"user":null,"tls":false}
{"name":"unix:SOCK","host":null,"port":null,"socket":"SOCK","database":0,"user":null,"tls":false}
ours on: 5
bool(true)
stats keyed by name: 5
bool(true)
bool(true)
keys: 0
int(1)
bool(true)
