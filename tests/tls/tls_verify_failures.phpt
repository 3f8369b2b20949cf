--TEST--
TLS: a wrong CA, an expired certificate and a wrong peer name fail the node with the reason in the QuorumException; verify_peer / verify_peer_name => false accept them
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
$res = rl_name('tls_verify');
$uris = array_map(fn($n) => "rediss://$n", rl_tls_nodes());
$opt = ['retry_count' => 0, 'connect_timeout' => rl_tls_ms(1000), 'timeout' => rl_tls_ms(1000)];
$lockAll = fn(RedLock $rl) => fn() => $rl->lock($res, 10000);

// 1. the server certificate is signed by a CA we do not trust
$rl = new RedLock($uris, ['tls' => ['cafile' => rl_tls_file('other-ca.crt')]] + $opt);
$m = rl_quorum_message($lockAll($rl));
echo "wrong CA: ", rl_contains($m, 'could not reach a quorum', rl_tls_nodes()[0], rl_tls_nodes()[2],
    'certificate verify failed', 'unable to get local issuer certificate|unable to verify the first certificate|self-signed|unable to get issuer'), "\n";
echo "no key written: ", rl_tls_count_keys($res), "\n";
$st = $rl->stats()['nodes'][rl_tls_nodes()[1]];
echo "counted as an error, last_error says why: ", $st['errors'] > 0 && str_contains((string) $st['last_error'], 'certificate verify failed')
    ? 'yes' : json_encode($st), "\n";
// ... and the system store does not know the test CA either
$rl = new RedLock($uris, $opt);
echo "system store: ", rl_contains(rl_quorum_message($lockAll($rl)), 'certificate verify failed'), "\n";

// 2. an expired certificate (signed by the trusted CA)
$rl = new RedLock(['rediss://' . rl_tls_expired()], rl_tls_opts() + $opt);
echo "expired: ", rl_contains(rl_quorum_message($lockAll($rl)), rl_tls_expired(), 'certificate verify failed', 'expired'), "\n";

// 3. the certificate is for localhost/127.0.0.1, we ask for another name
$rl = new RedLock($uris, rl_tls_opts(['peer_name' => 'wrong.example']) + $opt);
echo "wrong peer_name: ", rl_contains(rl_quorum_message($lockAll($rl)), 'certificate verify failed', 'hostname mismatch|wrong.example'), "\n";

// 4. verify_peer => false accepts all three (the connection is still encrypted)
foreach ([
    'other CA' => [$uris, ['cafile' => rl_tls_file('other-ca.crt'), 'verify_peer' => false]],
    'expired' => [['rediss://' . rl_tls_expired()], ['verify_peer' => false]],
    'wrong peer name' => [$uris, ['peer_name' => 'wrong.example', 'verify_peer' => false]],
] as $what => [$nodes, $tls]) {
    $rl = new RedLock($nodes, ['tls' => $tls] + $opt);
    try {
        $l = $rl->lock($res, 10000);
        echo "verify_peer false, $what: ", $l && $l->release() ? 'locked and released' : 'no lock', "\n";
    } catch (Throwable $e) {
        echo "verify_peer false, $what: ", get_class($e), ': ', $e->getMessage(), "\n";
    }
}
// verify_peer_name => false: the chain is checked, the name is not
$rl = new RedLock($uris, rl_tls_opts(['peer_name' => 'wrong.example', 'verify_peer_name' => false]) + $opt);
$l = $rl->lock($res, 10000);
echo "verify_peer_name false: ", $l && $l->release() ? 'locked and released' : 'no lock', "\n";
$rl = new RedLock($uris, ['tls' => ['cafile' => rl_tls_file('other-ca.crt'), 'verify_peer_name' => false]] + $opt);
echo "verify_peer_name false, other CA: ", rl_contains(rl_quorum_message($lockAll($rl)), 'certificate verify failed'), "\n";

// 5. the good settings on the same nodes still work (and were not confused with the failed ones)
$l = rl_tls_new()->lock($res, 10000);
echo "good settings: ", $l ? rl_tls_count_value($res, $l->token) : 'no lock', "\n";
$l?->release();
rl_tls_del($res);
echo "done\n";
?>
--EXPECT--
wrong CA: ok
no key written: 0
counted as an error, last_error says why: yes
system store: ok
expired: ok
wrong peer_name: ok
verify_peer false, other CA: locked and released
verify_peer false, expired: locked and released
verify_peer false, wrong peer name: locked and released
verify_peer_name false: locked and released
verify_peer_name false, other CA: ok
good settings: 3
done
