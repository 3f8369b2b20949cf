--TEST--
TLS: mutual TLS (--tls-auth-clients yes) works with local_cert/local_pk (also an encrypted key with its passphrase) and fails without a client certificate
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
$res = rl_name('tls_mutual');
$node = 'rediss://' . rl_tls_mtls();
$opt = ['retry_count' => 0, 'connect_timeout' => rl_tls_ms(1000), 'timeout' => rl_tls_ms(1000)];
$try = function (array $tls, ?array $nodes = null) use ($res, $node, $opt): string {
    $rl = new RedLock($nodes ?? [$node], ['tls' => $tls + ['cafile' => rl_tls_file('ca.crt')]] + $opt);
    try {
        $l = $rl->lock($res, 10000);
        return $l ? ($l->release() ? 'locked and released' : 'locked, release failed') : 'null';
    } catch (RedLock\QuorumException $e) {
        return 'QuorumException: ' . $e->getMessage();
    }
};

// certificate and key in two files
echo "client cert: ", $try(['local_cert' => rl_tls_file('client.crt'), 'local_pk' => rl_tls_file('client.key')]), "\n";
// an encrypted key and its passphrase
echo "encrypted key: ", $try(['local_cert' => rl_tls_file('client.crt'), 'local_pk' => rl_tls_file('client-enc.key'),
    'passphrase' => rl_tls_passphrase()]), "\n";
// certificate and key in one PEM file (local_pk omitted)
$pem = tempnam(sys_get_temp_dir(), 'rltlspem');
file_put_contents($pem, file_get_contents(rl_tls_file('client.crt')) . file_get_contents(rl_tls_file('client.key')));
echo "one PEM file: ", $try(['local_cert' => $pem]), "\n";
unlink($pem);
// the node's own 'tls' array brings the client certificate, the option the CA
[$h, $p] = explode(':', rl_tls_mtls());
echo "node array: ", $try([], [['host' => $h, 'port' => (int) $p,
    'tls' => ['local_cert' => rl_tls_file('client.crt'), 'local_pk' => rl_tls_file('client.key')]]]), "\n";

// no client certificate: the server refuses the handshake
$m = $try([]);
// (with TLS 1.3 the client finishes its side of the handshake first: the server's
// refusal arrives as an alert on the first read, and the reason must still say so)
echo "no client cert: ", rl_contains($m, 'QuorumException', rl_tls_mtls(), 'TLS', 'certificate'), "\n";
$m = $try([]);
echo "no client cert, again: ", rl_contains($m, 'QuorumException', rl_tls_mtls(), 'TLS', 'certificate'), "\n";
// a wrong passphrase: the key cannot be used; the passphrase is not in the message
$m = $try(['local_cert' => rl_tls_file('client.crt'), 'local_pk' => rl_tls_file('client-enc.key'), 'passphrase' => 'wrong-Pass-4711']);
echo "wrong passphrase: ", rl_contains($m, 'QuorumException', rl_tls_mtls(), 'TLS', 'certificate|local_pk|key|passphrase'), "\n";
echo "  passphrase not shown: ", str_contains($m, 'wrong-Pass-4711') ? "no: $m" : 'yes', "\n";
// a key that does not belong to the certificate
$m = $try(['local_cert' => rl_tls_file('client.crt'), 'local_pk' => rl_tls_file('server.key')]);
echo "key of another certificate: ", rl_contains($m, 'QuorumException', rl_tls_mtls(), 'TLS'), "\n";
// a certificate file that is not PEM
$junk = tempnam(sys_get_temp_dir(), 'rltlsjunk');
file_put_contents($junk, "not a certificate\n");
$m = $try(['local_cert' => $junk, 'local_pk' => rl_tls_file('client.key')]);
echo "not PEM: ", rl_contains($m, 'QuorumException', rl_tls_mtls(), 'TLS'), "\n";
unlink($junk);
echo "done\n";
?>
--EXPECT--
client cert: locked and released
encrypted key: locked and released
one PEM file: locked and released
node array: locked and released
no client cert: ok
no client cert, again: ok
wrong passphrase: ok
  passphrase not shown: yes
key of another certificate: ok
not PEM: ok
done
