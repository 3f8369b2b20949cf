--TEST--
auto_extend: no extension is sent after release() (INFO commandstats), nor after synchronized() returns; a dropped Lock object stays watched
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
function evalsha_calls(): int
{
    $n = 0;
    foreach (range(1, 5) as $i) $n += rl_cmd_calls($i, 'evalsha');
    return $n;
}
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('after_release');
$l = $rl->lock($res, 300, ['auto_extend' => true]);
$c0 = evalsha_calls();
usleep(450000);
echo "extensions while held: ", var_export(evalsha_calls() - $c0 >= 10, true), "\n"; // >= 2 rounds x 5 nodes
var_dump($l->release());
usleep(50000);
$c1 = evalsha_calls();
usleep(500000); // would be 5 rounds of extensions
echo "EVALSHA after release: ", evalsha_calls() - $c1, "\n";

// synchronized(): watched while $fn runs (longer than the ttl), not after
$r = $rl->synchronized($res, 300, function (RedLock\Lock $lk) {
    usleep(700000);
    return $lk->isValid();
}, ['auto_extend' => true]);
echo "valid at the end of a 700 ms fn (ttl 300): ", var_export($r, true), "\n";
usleep(50000);
$c2 = evalsha_calls();
usleep(500000);
echo "EVALSHA after synchronized(): ", evalsha_calls() - $c2, "\n";
echo "keys left: ", rl_count_keys($res), "\n";

// the Lock object dropped at once: still extended until the request ends
$rl->lock($res, 300, ['auto_extend' => true]);
usleep(700000);
echo "dropped object, still held: ", var_export($rl->isLocked($res), true), "\n";
?>
--EXPECT--
extensions while held: true
bool(true)
EVALSHA after release: 0
valid at the end of a 700 ms fn (ttl 300): true
EVALSHA after synchronized(): 0
keys left: 0
dropped object, still held: true
