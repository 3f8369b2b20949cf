--TEST--
TLS: the passphrase is a secret -- never in exception messages, nodes(), var_dump(), print_r(), stats() or phpinfo(), whether the key opens or not
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
$res = rl_name('tls_secret');
$right = rl_tls_passphrase();
$wrong = 'Wr0ng-Passphrase-' . bin2hex(random_bytes(4));
$seen = '';   // everything the extension shows
$show = function (mixed $v) use (&$seen): void {
    ob_start();
    var_dump($v);
    print_r($v);
    echo "\n";
    $seen .= ob_get_clean();
};
$tls = fn(string $pp) => ['cafile' => rl_tls_file('ca.crt'), 'local_cert' => rl_tls_file('client.crt'),
    'local_pk' => rl_tls_file('client-enc.key'), 'passphrase' => $pp];
$opt = ['retry_count' => 0, 'connect_timeout' => rl_tls_ms(1000), 'timeout' => rl_tls_ms(1000)];

// the right passphrase, in the option: the lock works
$rl = new RedLock(['rediss://' . rl_tls_mtls()], ['tls' => $tls($right)] + $opt);
$l = $rl->lock($res, 10000);
echo "right passphrase: ", $l ? 'locked' : 'no lock', "\n";
$show($rl);
$show($l);
$show($rl->nodes());
$show($rl->stats());
$l?->release();

// the wrong one, in a node's array: a failed node, the message says why but not the passphrase
[$h, $p] = explode(':', rl_tls_mtls());
$rl2 = new RedLock([['host' => $h, 'port' => (int) $p, 'tls' => $tls($wrong)]], $opt);
try {
    $rl2->lock($res, 10000);
    echo "wrong passphrase: no exception\n";
} catch (RedLock\QuorumException $e) {
    echo "wrong passphrase: QuorumException\n";
    $seen .= $e->getMessage() . "\n" . $e;
    $show($e);
}
$show($rl2);
$show($rl2->nodes());
$show($rl2->stats());

// bad input around the passphrase never echoes it
foreach ([
    fn() => new RedLock(['rediss://' . rl_tls_mtls()], ['tls' => ['passphrase' => $wrong]]),   // no local_cert
    fn() => new RedLock(['rediss://' . rl_tls_mtls()], ['tls' => ['passphrase' => $wrong, 'cafile' => '/no/such/file']]),
    fn() => new RedLock(['rediss://' . rl_tls_mtls()], ['tls' => ['passphrase' => $wrong, 'bogus' => 1]]),
    fn() => new RedLock(['rediss://' . rl_tls_mtls()], ['tls' => ['passphrase' => $wrong . "\0"]]),
    fn() => $rl->lock($res, 1000, ['tls' => ['passphrase' => $wrong]]),
] as $i => $f) {
    try {
        $f();
        echo "bad input $i: no exception\n";
    } catch (Throwable $e) {
        $seen .= $e->getMessage() . "\n" . $e;
    }
}

// phpinfo (the pooled connections of both)
ob_start();
phpinfo(INFO_MODULES);
$seen .= ob_get_clean();

echo "shown: ", strlen($seen) > 1000 ? 'plenty' : strlen($seen) . ' bytes', "\n";
echo "the right passphrase never shown: ", str_contains($seen, $right) ? 'NO' : 'yes', "\n";
echo "the wrong passphrase never shown: ", str_contains($seen, $wrong) ? 'NO' : 'yes', "\n";
echo "no 'passphrase' field anywhere but in messages naming the setting: ",
    preg_match('/\["passphrase"\]|\[passphrase\] =>/', $seen) ? 'NO' : 'yes', "\n";
rl_tls_del($res);
?>
--EXPECT--
right passphrase: locked
wrong passphrase: QuorumException
shown: plenty
the right passphrase never shown: yes
the wrong passphrase never shown: yes
no 'passphrase' field anywhere but in messages naming the setting: yes
