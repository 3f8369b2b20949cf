--TEST--
TLS: the TLS settings are part of a pooled connection's identity -- a verified connection is never reused for other settings (another CA, peer name, verify flags, client certificate or passphrase)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
$res = rl_name('tls_pool');
$opt = ['retry_count' => 0, 'connect_timeout' => rl_tls_ms(1000), 'timeout' => rl_tls_ms(1000)];
$n = rl_tls_nodes()[0];
[$h, $p] = explode(':', $n);
$pooled = function (): int {
    ob_start();
    (new ReflectionExtension('redlock'))->info();
    return preg_match('/^Pooled connections => (\d+)/m', ob_get_clean(), $m) ? (int) $m[1] : -1;
};
$try = function (array $nodes, array $tls) use ($opt, $res): string {
    $rl = new RedLock($nodes, ['tls' => $tls] + $opt);
    try {
        $l = $rl->lock($res, 10000);
        return $l && $l->release() ? 'works' : 'no lock';
    } catch (RedLock\QuorumException $e) {
        return str_contains($e->getMessage(), 'certificate verify failed') ? 'certificate verify failed' : 'fails: ' . $e->getMessage();
    }
};
$ca = rl_tls_file('ca.crt');
$other = rl_tls_file('other-ca.crt');

$p0 = $pooled();
echo "trusted CA: ", $try(["rediss://$n"], ['cafile' => $ca]), ", new pooled: ", $pooled() - $p0, "\n";
$p0 = $pooled();
echo "same settings, array form: ", $try([['host' => $h, 'port' => (int) $p, 'tls' => ['cafile' => $ca]]], []),
    ", new pooled: ", $pooled() - $p0, "\n";
$p0 = $pooled();
echo "same node, plaintext: ", $try(["redis://$n"], ['cafile' => $ca]) !== 'works' ? 'fails' : 'works?!',
    ", new pooled: ", $pooled() - $p0, "\n";
// the verified connection must not serve these
$p0 = $pooled();
echo "other CA: ", $try(["rediss://$n"], ['cafile' => $other]), ", new pooled: ", $pooled() - $p0, "\n";
$p0 = $pooled();
echo "wrong peer_name: ", $try(["rediss://$n"], ['cafile' => $ca, 'peer_name' => 'wrong.example']), ", new pooled: ", $pooled() - $p0, "\n";
$p0 = $pooled();
echo "other CA, verify_peer_name off: ", $try(["rediss://$n"], ['cafile' => $other, 'verify_peer_name' => false]), ", new pooled: ", $pooled() - $p0, "\n";
$p0 = $pooled();
echo "other CA, verify_peer off: ", $try(["rediss://$n"], ['cafile' => $other, 'verify_peer' => false]), ", new pooled: ", $pooled() - $p0, "\n";
$p0 = $pooled();
echo "capath instead of cafile: ", $try(["rediss://$n"], ['capath' => rl_tls_file('capath')]), ", new pooled: ", $pooled() - $p0, "\n";
// and the other way round: after a failure, the trusted settings still work on their own connection
$p0 = $pooled();
echo "trusted CA again: ", $try(["rediss://$n"], ['cafile' => $ca]), ", new pooled: ", $pooled() - $p0, "\n";

// client certificates: the node asking for one
$m = rl_tls_mtls();
$cert = ['cafile' => $ca, 'local_cert' => rl_tls_file('client.crt')];
$p0 = $pooled();
echo "mTLS, encrypted key, passphrase: ", $try(["rediss://$m"], $cert + ['local_pk' => rl_tls_file('client-enc.key'), 'passphrase' => rl_tls_passphrase()]),
    ", new pooled: ", $pooled() - $p0, "\n";
$p0 = $pooled();
$r = $try(["rediss://$m"], $cert + ['local_pk' => rl_tls_file('client-enc.key'), 'passphrase' => 'not-the-passphrase']);
echo "mTLS, wrong passphrase: ", $r === 'works' ? 'works (reused the connection of the right passphrase!)' : 'fails', ", new pooled: ", $pooled() - $p0, "\n";
$p0 = $pooled();
$r = $try(["rediss://$m"], ['cafile' => $ca]);
echo "mTLS, no client certificate: ", $r === 'works' ? 'works (reused a connection with a certificate!)' : 'fails', ", new pooled: ", $pooled() - $p0, "\n";
rl_tls_del($res);
echo "done\n";
?>
--EXPECT--
trusted CA: works, new pooled: 1
same settings, array form: works, new pooled: 0
same node, plaintext: fails, new pooled: 1
other CA: certificate verify failed, new pooled: 1
wrong peer_name: certificate verify failed, new pooled: 1
other CA, verify_peer_name off: certificate verify failed, new pooled: 1
other CA, verify_peer off: works, new pooled: 1
capath instead of cafile: works, new pooled: 1
trusted CA again: works, new pooled: 0
mTLS, encrypted key, passphrase: works, new pooled: 1
mTLS, wrong passphrase: fails, new pooled: 1
mTLS, no client certificate: fails, new pooled: 1
done
