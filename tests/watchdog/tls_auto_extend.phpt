--TEST--
auto_extend over TLS: the watchdog's own connections are rediss:// ones with the lock's TLS settings; the lock outlives its TTL
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../tls/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/../tls/tls.inc';
rl_tls_require();
$res = rl_name('tls_watch');
$rl = rl_tls_new();
$ttl = rl_tls_ms(500);
$l = $rl->lock($res, $ttl, ['auto_extend' => true]);
var_dump($l instanceof RedLock\Lock);
$ext0 = $rl->stats()['auto_extended'];
usleep(2 * $ttl * 1000); // twice the TTL
echo "valid after twice the ttl: ", var_export($l->isValid(), true), "\n";
echo "ours on the 3 TLS nodes: ", rl_tls_count_value($res, $l->token), "\n";
echo "extended by the watchdog: ", var_export($rl->stats()['auto_extended'] - $ext0 >= 3, true), "\n";
var_dump($l->release());
echo "keys left: ", rl_tls_count_keys($res), "\n";
?>
--EXPECT--
bool(true)
valid after twice the ttl: true
ours on the 3 TLS nodes: 3
extended by the watchdog: true
bool(true)
keys left: 0
