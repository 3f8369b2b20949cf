--TEST--
auto_extend: 200 locks held at once through several TTLs by the one watchdog thread, then released
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// a generous ttl: the run under valgrind is slow, the point is the number of locks
$rl = rl_new(['retry_count' => 0, 'timeout' => 500, 'connect_timeout' => 500]);
$base = rl_name('many');
$locks = [];
for ($i = 0; $i < 200; $i++) {
    $locks[$i] = $rl->lock("$base:$i", 3000, ['auto_extend' => true]);
}
echo "acquired: ", count(array_filter($locks)), "\n";
$ext0 = $rl->stats()['auto_extended'];
sleep(4); // past the TTL: only the watchdog keeps them
$valid = count(array_filter($locks, fn($l) => $l->isValid()));
echo "valid after 4 s (ttl 3 s): $valid\n";
echo "watchdog extensions >= 400: ", var_export($rl->stats()['auto_extended'] - $ext0 >= 400, true), "\n";
// a sample of keys on the nodes still holds our tokens
$held = 0;
for ($i = 0; $i < 200; $i += 40) {
    $held += rl_count_value("$base:$i", $locks[$i]->token) === 5;
}
echo "sampled keys held on all 5 nodes: $held of 5\n";
$rel = 0;
foreach ($locks as $l) {
    $rel += $l->release();
}
echo "released: $rel\n";
?>
--EXPECT--
acquired: 200
valid after 4 s (ttl 3 s): 200
watchdog extensions >= 400: true
sampled keys held on all 5 nodes: 5 of 5
released: 200
