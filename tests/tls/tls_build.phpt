--TEST--
TLS in the build: phpinfo says "TLS => yes (OpenSSL x.y.z ...)" or "no"; a build without TLS refuses TLS nodes with a ValueError saying so (both builds run this test)
--EXTENSIONS--
redlock
--SKIPIF--
<?php if (!extension_loaded('redlock')) die('skip redlock not loaded'); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
$info = rl_tls_info();
$built = rl_tls_built();
echo "phpinfo row: ", preg_match('/^(yes \(OpenSSL \d+\.\d+\.\d+.*\)|no)$/', $info) ? 'well-formed' : "unexpected: '$info'", "\n";

$forms = [
    'rediss://' => ['rediss://127.0.0.1:7001'],
    'rediss:// with a password' => ['rediss://u:Secr3t-pw@127.0.0.1:7001'],
    "'tls' => true" => [['host' => '127.0.0.1', 'port' => 7001, 'tls' => true]],
    "'tls' => []" => [['host' => '127.0.0.1', 'port' => 7001, 'tls' => []]],
    "'tls' => [settings]" => [['host' => '127.0.0.1', 'port' => 7001, 'tls' => ['verify_peer' => false]]],
];
foreach ($forms as $what => $nodes) {
    try {
        $rl = new RedLock($nodes);
        $r = $built ? 'ok (accepted)' : 'accepted by a build without TLS!';
    } catch (ValueError $e) {
        $m = $e->getMessage();
        $r = !$built && str_contains($m, 'entry 0') && str_contains($m, 'TLS') && str_contains($m, 'not available')
            && !str_contains($m, 'Secr3t') ? 'ok (refused)' : "ValueError: $m";
    }
    // accepted with TLS, refused without
    echo "$what: ", str_starts_with($r, 'ok') ? 'ok' : $r, "\n";
}
// the option alone does not turn TLS on: fine in both builds
$rl = new RedLock(['127.0.0.1:7001'], ['tls' => ['verify_peer' => false]]);
echo "tls option, plain node: ", json_encode($rl->nodes()[0]['tls']), "\n";
// 'tls' => false is plain in both
$rl = new RedLock([['host' => '127.0.0.1', 'port' => 7001, 'tls' => false]]);
echo "'tls' => false: ", json_encode($rl->nodes()[0]['tls']), "\n";
?>
--EXPECT--
phpinfo row: well-formed
rediss://: ok
rediss:// with a password: ok
'tls' => true: ok
'tls' => []: ok
'tls' => [settings]: ok
tls option, plain node: false
'tls' => false: false
