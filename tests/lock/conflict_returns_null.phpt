--TEST--
Conflict: lock() of a resource held by another owner returns null and leaves the holder's keys untouched
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$a = rl_new();
$b = rl_new(['retry_count' => 0]);
$res = rl_name('conflict');
$held = $a->lock($res, 10000);
$before = $b->stats()['conflicts'];

$t0 = hrtime(true);
var_dump($b->lock($res, 10000));
echo "no retries, fast: ", rl_ms($t0) < 300 ? 'yes' : 'no', "\n";
echo "holder's token still on: ", rl_count_value($res, $held->token), "\n";
echo "PTTL still > 9000 on: ", count(array_filter(rl_pttls($res), fn($p) => $p > 9000)), "\n";
echo "conflicts +", $b->stats()['conflicts'] - $before, "\n";

// with retries, still null, and the retries really waited
$t0 = hrtime(true);
var_dump($b->lock($res, 10000, ['retry_count' => 2, 'retry_delay' => 50, 'retry_jitter' => 0]));
$ms = rl_ms($t0);
echo "retried (>= 100 ms): ", $ms >= 95 ? 'yes' : "no ($ms)", "\n";
echo "holder's token still on: ", rl_count_value($res, $held->token), "\n";
var_dump($held->isValid());

// a foreign owner on only 2 of 5 nodes: we still get a quorum of 3
$res2 = rl_name('conflict2');
rl_set_on([1, 2], $res2, 'foreign-owner');
$l = $b->lock($res2, 5000);
var_dump($l instanceof RedLock\Lock);
echo "ours on: ", rl_count_value($res2, $l->token), ", foreign on: ", rl_count_value($res2, 'foreign-owner'), "\n";
var_dump($l->release());
echo "after release, foreign on: ", rl_count_value($res2, 'foreign-owner'), ", keys: ", rl_count_keys($res2), "\n";

var_dump($held->release());
rl_del($res, $res2);
?>
--EXPECT--
NULL
no retries, fast: yes
holder's token still on: 5
PTTL still > 9000 on: 5
conflicts +1
NULL
retried (>= 100 ms): yes
holder's token still on: 5
bool(true)
bool(true)
ours on: 3, foreign on: 2
bool(true)
after release, foreign on: 2, keys: 2
bool(true)
