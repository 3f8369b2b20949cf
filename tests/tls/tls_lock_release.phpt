--TEST--
TLS: lock/release over rediss:// on 3 nodes (URI and array forms), keys land on every node, nodes() shows tls
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
$res = rl_name('tls_lock');

// rediss:// URIs, the CA from the "tls" option
$rl = rl_tls_new();
$l = $rl->lock($res, 10000);
var_dump($l instanceof RedLock\Lock);
echo "ours on the 3 TLS nodes: ", $l ? rl_tls_count_value($res, $l->token) : '-', "\n";
var_dump($rl->isLocked($res));
var_dump($l && $l->extend(20000));
var_dump($l && $l->release());
echo "keys left: ", rl_tls_count_keys($res), "\n";
var_dump($rl->isLocked($res));
$st = $rl->stats()['nodes'];
$n = rl_tls_nodes()[0];
echo "stats ok > 0, no errors: ", ($st[$n]['ok'] > 0 && $st[$n]['errors'] === 0) ? 'yes' : json_encode($st[$n]), "\n";

// nodes(): tls => true, the name is host:port
foreach ($rl->nodes() as $i => $node) {
    echo $node['name'] === rl_tls_nodes()[$i] && $node['tls'] === true ? "node $i tls\n" : json_encode($node) . "\n";
}

// array nodes: 'tls' => true takes the option's settings; 'tls' => [...] brings its own
$nodes = [];
foreach (rl_tls_nodes() as $i => $addr) {
    [$h, $p] = explode(':', $addr);
    $nodes[] = match ($i) {
        0 => ['host' => $h, 'port' => (int) $p, 'tls' => true],
        1 => ['host' => $h, 'port' => (int) $p, 'tls' => []],
        2 => ['host' => 'localhost', 'port' => (int) $p, 'tls' => ['cafile' => rl_tls_file('ca.crt'), 'verify_peer' => true]],
    };
}
$rl2 = new RedLock($nodes, rl_tls_opts() + ['retry_count' => 0, 'connect_timeout' => rl_tls_ms(1000), 'timeout' => rl_tls_ms(1000)]);
echo json_encode(array_column($rl2->nodes(), 'tls')), "\n";
$l = $rl2->lock($res, 10000);
echo "array form: ", $l ? rl_tls_count_value($res, $l->token) : 'no lock', "\n";
var_dump($l && $l->release());

// the option alone: settings for every TLS node, but TLS stays off for the others
$plain = new RedLock(rl_nodes(), rl_tls_opts());
echo json_encode(array_column($plain->nodes(), 'tls')), "\n";
$l = $plain->lock($res, 10000);
echo "plain nodes with the tls option: ", $l ? rl_count_value($res, $l->token) : 'no lock', "\n";
$l?->release();

// 20 cycles on one RedLock: the connections are kept (no new handshake per call)
$before = array_map('rl_tls_accepted', rl_tls_nodes());
$ok = 0;
for ($i = 0; $i < 20; $i++) {
    $l = $rl->lock("$res:$i", 10000);
    $ok += ($l && $l->release()) ? 1 : 0;
}
$after = array_map('rl_tls_accepted', rl_tls_nodes());
echo "20 cycles: $ok ok; new connections per node (minus the INFO probe): ",
    json_encode(array_map(fn($a, $b) => $b - $a - 1, $before, $after)), "\n";
rl_tls_del($res);
echo "done\n";
?>
--EXPECT--
bool(true)
ours on the 3 TLS nodes: 3
bool(true)
bool(true)
bool(true)
keys left: 0
bool(false)
stats ok > 0, no errors: yes
node 0 tls
node 1 tls
node 2 tls
[true,true,true]
array form: 3
bool(true)
[false,false,false,false,false]
plain nodes with the tls option: 5
20 cycles: 20 ok; new connections per node (minus the INFO probe): [0,0,0]
done
