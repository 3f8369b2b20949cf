--TEST--
release() is token-checked: a foreign value is left untouched, and release() reports false without a quorum
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);

function show(string $res, string $token): void {
    echo implode(',', array_map(fn($v) => $v === null ? '-' : ($v === $token ? 'ours' : $v), rl_values($res))), "\n";
}

// another owner overwrote 3 of 5 nodes: only 2 deletions of OUR token -> false
$res = rl_name('release_foreign_a');
$l = $rl->lock($res, 10000);
rl_set_on([1, 2, 3], $res, 'foreign', 20000);
var_dump($l->release());
var_dump($l->isReleased());
show($res, $l->token);
echo "foreign PTTL kept (> 19000): ", count(array_filter(rl_pttls($res), fn($p) => $p > 19000)), "\n";

// overwritten on 2 of 5: 3 deletions -> true, the 2 foreign values stay
$res2 = rl_name('release_foreign_b');
$l = $rl->lock($res2, 10000);
rl_set_on([4, 5], $res2, 'foreign', 20000);
var_dump($l->release());
show($res2, $l->token);

// classic: our lock expired, someone else acquired, our late release must not touch theirs
$res3 = rl_name('release_foreign_c');
$old = $rl->lock($res3, 150);
usleep(200000);
$new = rl_new(['retry_count' => 0])->lock($res3, 10000);
var_dump($new instanceof RedLock\Lock);
var_dump($old->release());
show($res3, $new->token);
var_dump($new->release());
show($res3, $new->token);
rl_del($res, $res2, $res3);
?>
--EXPECT--
bool(false)
bool(true)
foreign,foreign,foreign,-,-
foreign PTTL kept (> 19000): 3
bool(true)
-,-,-,foreign,foreign
bool(true)
bool(false)
ours,ours,ours,ours,ours
bool(true)
-,-,-,-,-
