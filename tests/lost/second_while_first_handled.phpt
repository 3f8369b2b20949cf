--TEST--
on_lost: two losses pending at one point; the first LockLostException in flight, the second is delivered once in the catch block (and in a finally block), 'throw' or a callable, never lost, never twice
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('lost-second');
$log = [];

/* Both locks run out during usleep (an internal call: no interrupt point in
 * it), so both losses are pending when it returns: the first is thrown
 * there, the second must wait until that exception is handled. */
function take(RedLock $rl, string $res, array $second): array
{
    // both validities end well after both are taken, well before usleep ends
    $a = $rl->lock("$res:a", (int) rl_slack(300), ['on_lost' => 'throw']);
    $b = $rl->lock("$res:b", (int) rl_slack(400), $second);
    return [$a, $b];
}

/* the bounded busy loop that sees the second delivery */
function wait_second(string $where): void
{
    global $log, $called;
    $t0 = hrtime(true);
    try {
        while (!$called && rl_ms($t0) < rl_slack(2000)) {
        }
        $log[] = "$where: callable " . ($called ? 'called' : 'not called');
    } catch (RedLock\LockLostException $e) {
        $log[] = "$where: second thrown (" . (str_contains($e->getMessage(), ':b"') ? 'b' : '?') . ')';
    }
}

/* 1. in the catch block, both 'throw' */
$called = false;
[$a, $b] = take($rl, "$res:1", ['on_lost' => 'throw']);
try {
    usleep((int) rl_slack(700) * 1000);
    for ($i = 0; $i < 10; $i++) {
    }
    $log[] = 'catch: no first exception';
} catch (RedLock\LockLostException $e) {
    $log[] = 'catch: first thrown (' . (str_contains($e->getMessage(), ':a"') ? 'a' : '?') . ')';
    wait_second('catch');
}

/* 2. in a finally block, the first propagating through it; the second a callable */
$called = false;
[$a, $b] = take($rl, "$res:2", ['on_lost' => function (RedLock\Lock $l) use (&$called, &$log, $res) {
    $called = true;
    $log[] = 'finally: callable with ' . ($l->resource === "$res:2:b" ? 'b' : '?');
}]);
try {
    try {
        usleep((int) rl_slack(700) * 1000);
        for ($i = 0; $i < 10; $i++) {
        }
        $log[] = 'finally: no first exception';
    } finally {
        wait_second('finally');
    }
} catch (RedLock\LockLostException $e) {
    $log[] = 'finally: first went on out (' . (str_contains($e->getMessage(), ':a"') ? 'a' : '?') . ')';
}

/* never twice: nothing more comes */
$called = false;
$t0 = hrtime(true);
try {
    while (rl_ms($t0) < rl_slack(300)) {
    }
    $log[] = 'nothing more';
} catch (RedLock\LockLostException $e) {
    $log[] = 'again: ' . $e->getMessage();
}
echo implode("\n", $log), "\n";
rl_del("$res:1:a", "$res:1:b", "$res:2:a", "$res:2:b");
?>
--EXPECT--
catch: first thrown (a)
catch: second thrown (b)
finally: callable with b
finally: callable called
finally: first went on out (a)
nothing more
