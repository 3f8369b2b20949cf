--TEST--
TLS: TLS to a plaintext port and plaintext to a TLS port fail fast (bounded by the timeouts, no hang), with a reason
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
$res = rl_name('tls_mismatch');
// connect_timeout covers TCP connect + TLS handshake; timeout one round trip
$opt = rl_tls_opts() + ['retry_count' => 0, 'connect_timeout' => rl_tls_ms(200), 'timeout' => rl_tls_ms(200)];
define('BOUND_MS', rl_tls_ms(1500));   // 200 + 200 ms, plus a wide margin for a loaded machine

$cases = [
    // a plain Redis answers the ClientHello with "-ERR ..." or closes: not TLS
    'TLS to plaintext ports' => array_map(fn($n) => "rediss://$n", array_slice(rl_nodes(), 0, 3)),
    // the TLS server waits for a ClientHello; it gets "*1\r\n$4\r\nPING..." and drops it
    'plaintext to TLS ports' => array_map(fn($n) => "redis://$n", rl_tls_nodes()),
];
foreach ($cases as $what => $nodes) {
    for ($round = 1; $round <= 2; $round++) {   // again on the same (pooled) connections
        $rl = new RedLock($nodes, $opt);
        $t0 = hrtime(true);
        $m = rl_quorum_message(fn() => $rl->lock($res, 10000));
        $ms = rl_ms($t0);
        echo "$what #$round: ", rl_contains($m, 'could not reach a quorum', explode('//', $nodes[0])[1]),
            ', bounded: ', $ms < BOUND_MS ? 'yes' : "no ($ms ms)", "\n";
        if ($round === 1) {
            echo "  reason: ", preg_match('/' . preg_quote(explode('//', $nodes[0])[1], '/') . ' ([^;]+)/', $m, $mm) && trim($mm[1]) !== ''
                ? 'given' : "none: $m", "\n";
        }
    }
}
// the plain nodes and the TLS nodes are fine after that
$l = rl_new(['retry_count' => 0])->lock($res, 10000);
echo "plain nodes still fine: ", $l && $l->release() ? 'yes' : 'no', "\n";
$l = rl_tls_new()->lock($res, 10000);
echo "TLS nodes still fine: ", $l && $l->release() ? 'yes' : 'no', "\n";

// a TCP listener that accepts and never answers the ClientHello: bounded by connect_timeout
$srv = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
$port = (int) substr(strrchr(stream_socket_get_name($srv, false), ':'), 1);
$rl = new RedLock(["rediss://127.0.0.1:$port"], $opt);
$t0 = hrtime(true);
$m = rl_quorum_message(fn() => $rl->lock($res, 10000));
$ms = rl_ms($t0);
echo "silent TLS server: ", rl_contains($m, "127.0.0.1:$port"), ', bounded: ', $ms < BOUND_MS ? 'yes' : "no ($ms ms)", "\n";
fclose($srv);
rl_del($res);
rl_tls_del($res);
echo "done\n";
?>
--EXPECT--
TLS to plaintext ports #1: ok, bounded: yes
  reason: given
TLS to plaintext ports #2: ok, bounded: yes
plaintext to TLS ports #1: ok, bounded: yes
  reason: given
plaintext to TLS ports #2: ok, bounded: yes
plain nodes still fine: yes
TLS nodes still fine: yes
silent TLS server: ok, bounded: yes
done
