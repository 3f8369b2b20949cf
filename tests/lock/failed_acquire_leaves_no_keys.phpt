--TEST--
A failed acquisition releases on all nodes: no key of ours is left anywhere, foreign keys untouched
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);

function show(string $res): void {
    echo implode(',', array_map(fn($v) => $v === null ? '-' : ($v === 'foreign' ? 'F' : 'X'), rl_values($res))), "\n";
}

// foreign owner on 3 nodes: our SET succeeds on 2, quorum fails -> those 2 are released
$res = rl_name('failed_acquire_a');
rl_set_on([1, 2, 3], $res, 'foreign');
var_dump($rl->lock($res, 5000));
show($res);

// on the other 3, with retries: every attempt cleans up after itself
$res2 = rl_name('failed_acquire_b');
rl_set_on([3, 4, 5], $res2, 'foreign');
var_dump($rl->lock($res2, 5000, ['retry_count' => 2, 'retry_delay' => 10, 'retry_jitter' => 0]));
show($res2);
echo "foreign PTTL kept: ", count(array_filter(rl_pttls($res2), fn($p) => $p > 4000)), "\n";

// validity <= 0 (ttl 2 ms is below the drift of 2 ms + 1%): null, nothing left
$res3 = rl_name('failed_acquire_c');
var_dump($rl->lock($res3, 2));
show($res3);
// drift_factor 0.99 with ttl 100: validity = 100 - elapsed - 101 < 0
var_dump($rl->lock($res3, 100, ['drift_factor' => 0.99]));
show($res3);
// and after all that the resource is free
$l = $rl->lock($res3, 5000);
echo "ours on: ", rl_count_value($res3, $l->token), "\n";
$l->release();
show($res3);
rl_del($res, $res2, $res3);
?>
--EXPECT--
NULL
F,F,F,-,-
NULL
-,-,F,F,F
foreign PTTL kept: 3
NULL
-,-,-,-,-
NULL
-,-,-,-,-
ours on: 5
-,-,-,-,-
