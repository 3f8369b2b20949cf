--TEST--
fencing: Lock::$fence grows across locks, resources and RedLock objects; null without the option; kept by extend(); per call and in the constructor
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$prefix = rl_name('fencing_basic') . ':';
$fenced = rl_new(['prefix' => $prefix, 'retry_count' => 0, 'fencing' => true]);
$plain = rl_new(['prefix' => $prefix, 'retry_count' => 0]);
$res = 'r' . bin2hex(random_bytes(4));

// without the option: null
$l = $plain->lock($res, 5000);
var_dump($l->fence);
$l->release();

// with it: a positive int, strictly larger at each later lock() of the same prefix
// (same resource, other resources, other RedLock objects, per-call option)
$fences = [];
$seqOk = true;
$other = rl_new(['prefix' => $prefix, 'retry_count' => 0, 'fencing' => true]);
for ($i = 0; $i < 12; $i++) {
    $l = match ($i % 4) {
        0 => $fenced->lock($res, 5000),
        1 => $fenced->lock($res . ':' . $i, 5000),
        2 => $other->lock($res, 5000),
        3 => $plain->lock($res, 5000, ['fencing' => true]),
    };
    if (!$l instanceof RedLock\Lock || !is_int($l->fence) || $l->fence < 1) {
        echo "lock $i: ", var_export($l?->fence, true), "\n";
        $seqOk = false;
        continue;
    }
    if ($fences && $l->fence <= end($fences)) {
        echo "lock $i: fence {$l->fence} not above ", end($fences), "\n";
        $seqOk = false;
    }
    $fences[] = $l->fence;
    $l->release();
}
echo "12 fences strictly increasing: ", var_export($seqOk && count($fences) === 12, true), "\n";

// per call off wins over the constructor
$l = $fenced->lock($res, 5000, ['fencing' => false]);
var_dump($l->fence);
$l->release();

// extend() keeps the fence; a later lock still gets a larger one
$l = $fenced->lock($res, 5000);
$f = $l->fence;
var_dump($l->extend(8000), $l->fence === $f, $l->ttl);
$l->release();
$l2 = $fenced->lock($res, 5000);
echo "after extend, next is larger: ", var_export($l2->fence > $f, true), "\n";
$l2->release();

// synchronized() hands the fenced Lock to the callback
$seen = $fenced->synchronized($res, 5000, fn(RedLock\Lock $l) => $l->fence);
echo "synchronized fence larger: ", var_export($seen > $l2->fence, true), "\n";

// a held lock: a contender gets null (no fence handed out to it)
$h = $fenced->lock($res, 5000);
var_dump($other->lock($res, 5000));
$h->release();

// the counter key is exactly prefix . "\0redlock:fence", never expires, and a
// quorum holds a value >= the last fence
$key = $prefix . "\0redlock:fence";
$vals = rl_values($key);
$atLeast = count(array_filter($vals, fn($v) => is_string($v) && (int) $v >= $h->fence));
echo "counter >= last fence on a quorum: ", var_export($atLeast >= 3, true), "\n";
echo "counter is an integer everywhere: ", var_export(count(array_filter($vals, fn($v) => is_string($v) && preg_match("/^[1-9][0-9]*$/", $v))) === 5, true), "\n";
$ttls = rl_pttls($key);
echo "PTTL of the counter: ", implode(',', array_unique($ttls)), "\n";
echo "no other key with the suffix: ", rl_count_keys($prefix . 'redlock:fence') + rl_count_keys("\0redlock:fence" . $prefix), "\n";
rl_del($key, $res);
?>
--EXPECT--
NULL
12 fences strictly increasing: true
NULL
bool(true)
bool(true)
int(8000)
after extend, next is larger: true
synchronized fence larger: true
NULL
counter >= last fence on a quorum: true
counter is an integer everywhere: true
PTTL of the counter: -1
no other key with the suffix: 0
