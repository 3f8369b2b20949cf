--TEST--
release()/extend() still work after SCRIPT FLUSH (EVALSHA with NOSCRIPT fallback)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('script_flush');
$l = $rl->lock($res, 5000);
var_dump($l->extend(6000), $l->release());   // scripts loaded
$l = $rl->lock($res, 5000);
foreach (rl_nodes() as $addr) {
    rl_redis($addr)->cmd('SCRIPT', 'FLUSH');
}
var_dump($l->extend(7000));
echo "PTTL > 6000 on: ", count(array_filter(rl_pttls($res), fn($p) => $p > 6000)), "\n";
foreach (rl_nodes() as $addr) {
    rl_redis($addr)->cmd('SCRIPT', 'FLUSH');
}
var_dump($l->release());
echo "keys: ", rl_count_keys($res), "\n";
rl_del($res);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
PTTL > 6000 on: 5
bool(true)
keys: 0
