<?php
// This extension over TLS: the same cycle as ext.php (5 nodes, retry_count 0,
// persistent connections), the nodes as rediss:// URIs trusting the test CA of
// tests/nodes.sh start-tls ($REDLOCK_TEST_TLS_DIR/ca.crt). The first cycle
// (TCP connects + TLS handshakes + script loads) is reported as first_us.
declare(strict_types=1);
require __DIR__ . '/common.php';
$a = bench_args();
if (!extension_loaded('redlock')) {
    bench_skip('ext_tls', 'redlock extension not loaded (not built yet?)');
}
$dir = getenv('REDLOCK_TEST_TLS_DIR') ?: '';
if ($dir === '' || !is_file("$dir/ca.crt")) {
    bench_skip('ext_tls', 'no TLS test nodes (REDLOCK_TEST_TLS_DIR; tests/nodes.sh start-tls)');
}
try {
    $rl = new RedLock(array_map(fn (string $n) => "rediss://$n", $a['nodes']),
        ['retry_count' => 0, 'tls' => ['cafile' => "$dir/ca.crt"]]);
} catch (ValueError $e) {
    bench_skip('ext_tls', $e->getMessage());   // a build without TLS
}
bench_run('ext_tls', $a,
    fn (string $k) => $rl->lock($k, 10000),
    fn (RedLock\Lock $l): bool => $l->release());
