--TEST--
extend() of a lost lock: false, never recreates the key, never touches a foreign owner's TTL
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);

// expired
$res = rl_name('extend_lost_a');
$l = $rl->lock($res, 100);
usleep(150000);
var_dump($l->extend(5000));
var_dump($l->isValid());
echo "keys recreated: ", rl_count_keys($res), "\n";

// a foreign owner on 3 nodes
$res2 = rl_name('extend_lost_b');
$l = $rl->lock($res2, 10000);
rl_set_on([1, 2, 3], $res2, 'foreign', 5000);
var_dump($l->extend(60000));
$p = rl_pttls($res2);
echo "foreign PTTL not extended: ", ($p[1] <= 5000 && $p[2] <= 5000 && $p[3] <= 5000) ? 'yes' : 'no', "\n";
echo "foreign on: ", rl_count_value($res2, 'foreign'), "\n";
rl_del($res, $res2);
?>
--EXPECT--
bool(false)
bool(false)
keys recreated: 0
bool(false)
foreign PTTL not extended: yes
foreign on: 3
