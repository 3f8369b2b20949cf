--TEST--
wait: a release's wake message carries a random id of that release, never the released token (a framework's token is derived from its owner): two releases by the same owner send different ids
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
$res = rl_name('relmsg');
// a token like a framework's: fixed by its owner, the same at each lock
$token = 'owner-' . bin2hex(random_bytes(12));
$chan = "redlock:released:$res";
// any client allowed to SUBSCRIBE: the key's channel and its 64 shards ("\0" and chr(48 + k))
$s = stream_socket_client('tcp://' . rl_nodes()[0], $errno, $err, 2.0);
stream_set_timeout($s, 0, 200000);
$chans = [$chan];
for ($k = 0; $k < 64; $k++) $chans[] = "$chan\0" . chr(48 + $k);
$cmd = '*' . (count($chans) + 1) . "\r\n\$9\r\nSUBSCRIBE\r\n";
foreach ($chans as $c) $cmd .= '$' . strlen($c) . "\r\n$c\r\n";
fwrite($s, $cmd);
$buf = '';
$deadline = microtime(true) + rl_slack(3000) / 1000;
while (substr_count($buf, "\$9\r\nsubscribe\r\n") < 65 && microtime(true) < $deadline) {
    $buf .= (string) fread($s, 65536);
}
echo "subscribed: ", substr_count($buf, "\$9\r\nsubscribe\r\n"), "\n";

$rl = rl_new(['retry_count' => 0]);
foreach ([1, 2] as $i) {
    $l = $rl->lock($res, 5000, ['token' => $token]);
    echo "release $i: ", var_export($l && $l->release(), true), "\n";
}
// the two messages: "<subscribers> <payload>" on one shard
$buf = '';
$payloads = [];
$deadline = microtime(true) + rl_slack(3000) / 1000;
while (count($payloads) < 2 && microtime(true) < $deadline) {
    $buf .= (string) fread($s, 65536);
    preg_match_all('/\*3\r\n\$7\r\nmessage\r\n\$\d+\r\n[^\r]*\r\n\$(\d+)\r\n/s', $buf, $m, PREG_OFFSET_CAPTURE);
    $payloads = [];
    foreach ($m[1] as [$len, $off]) {
        $payloads[] = substr($buf, $off + strlen($len) + 2, (int) $len);
    }
}
fclose($s);
echo "messages: ", count($payloads), "\n";
echo "token in a message: ", var_export(count(array_filter($payloads, fn($p) => str_contains($p, $token))) > 0, true), "\n";
echo "form '<n> <16 hex>': ", var_export(count(array_filter($payloads, fn($p) => preg_match('/^1 [0-9a-f]{16}$/', $p))) === 2, true),
    " (", implode(' | ', $payloads), ")\n";
echo "the two releases differ: ", var_export(count($payloads) === 2 && $payloads[0] !== $payloads[1], true), "\n";
rl_del($res);
?>
--EXPECTF--
subscribed: 65
release 1: true
release 2: true
messages: 2
token in a message: false
form '<n> <16 hex>': true (%s)
the two releases differ: true
