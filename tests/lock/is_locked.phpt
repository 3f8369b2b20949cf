--TEST--
isLocked(): true when a majority of nodes hold a key for the resource, whoever the owner
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('is_locked');
var_dump($rl->isLocked($res));
$l = $rl->lock($res, 5000);
var_dump($rl->isLocked($res));
var_dump(rl_new()->isLocked($res));
$l->release();
var_dump($rl->isLocked($res));

// foreign owners: 3 of 5 -> locked, 2 of 5 -> not
rl_set_on([1, 3, 5], $res, 'someone-else');
var_dump($rl->isLocked($res));
rl_del($res);
rl_set_on([2, 4], $res, 'someone-else');
var_dump($rl->isLocked($res));
rl_del($res);
// isLocked never creates or changes keys
echo "keys: ", rl_count_keys($res), "\n";

// binary resource
$bin = rl_name('is_locked') . "\xff\x01 \r\n";
$l = $rl->lock($bin, 5000);
var_dump($rl->isLocked($bin), $rl->isLocked(substr($bin, 0, -1)));
$l->release();
// expired
$l = $rl->lock($res, 100);
usleep(150000);
var_dump($rl->isLocked($res));
rl_del($res, $bin);
?>
--EXPECT--
bool(false)
bool(true)
bool(true)
bool(false)
bool(true)
bool(false)
keys: 0
bool(true)
bool(false)
bool(false)
