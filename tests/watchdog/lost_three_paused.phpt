--TEST--
auto_extend: with 3 of 5 nodes paused the first failed extension marks the lock lost: isValid() false, remaining() 0, extend() false or LockLostException
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('lost');
$l = $rl->lock($res, 1000, ['auto_extend' => true]);
$t = $rl->lock($res . ':t', 1000, ['auto_extend' => true, 'throw_on_lost' => true]);
usleep(400000);
echo "valid before: ", var_export($l->isValid() && $t->isValid(), true), "\n";
foreach ([1, 2, 3] as $i) rl_node_ctl('pause', $i);
$t0 = hrtime(true);
while ($l->isValid() && rl_ms($t0) < 3000) {
    usleep(10000);
}
$seen = rl_ms($t0);
// due at most a third of the ttl after the last extension, then one round trip (50 ms timeout)
echo "loss seen within 600 ms: ", var_export($seen < 600, true), ($seen < 600 ? '' : " ($seen ms)"), "\n";
echo "isValid: ", var_export($l->isValid(), true), ", remaining: ", $l->remaining(), "\n";
$a = hrtime(true);
var_dump($l->extend(1000)); // a lost lock stays lost: no round trip
echo "extend() answered without waiting: ", var_export(rl_ms($a) < 40, true), "\n";
while ($t->isValid() && rl_ms($t0) < 3000) {
    usleep(10000);
}
try {
    $t->extend(1000);
    echo "no exception\n";
} catch (RedLock\LockLostException $e) {
    echo get_class($e), ": ", str_contains($e->getMessage(), 'auto_extend') && str_contains($e->getMessage(), 'quorum') ? 'ok' : $e->getMessage(), "\n";
}
// keys on the paused nodes expire meanwhile (their last TTL was 1 s)
usleep(1100000);
foreach ([1, 2, 3] as $i) rl_node_ctl('resume', $i);
usleep(100000);
echo "still lost after the nodes came back: ", var_export(!$l->isValid() && $l->remaining() === 0, true), "\n";
var_dump($l->release()); // as for any lost lock: the token is gone
echo "isReleased: ", var_export($l->isReleased(), true), "\n";
try { $t->release(); } catch (RedLock\LockLostException $e) { echo "release() with throw_on_lost: LockLostException\n"; }
$other = $rl->lock($res, 1000);
echo "another owner can take it: ", var_export($other instanceof RedLock\Lock, true), "\n";
$other?->release();
rl_del($res, $res . ':t');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
valid before: true
loss seen within 600 ms: true
isValid: false, remaining: 0
bool(false)
extend() answered without waiting: true
RedLock\LockLostException: ok
still lost after the nodes came back: true
bool(false)
isReleased: true
release() with throw_on_lost: LockLostException
another owner can take it: true
