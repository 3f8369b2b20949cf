--TEST--
on_lost: a constructor callable that holds its own RedLock (a reference cycle) is freed by gc_collect_cycles(), also when bound to an object that holds the RedLock, and also after its locks were taken and released
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$res = rl_name('lost-gc');
$freed = [];
final class Marker
{
    public function __construct(private string $name) {}
    public function __destruct() { $GLOBALS['freed'][] = $this->name; }
}

// 1. the closure captures the RedLock by reference
function cycle_by_ref(): void
{
    $m = new Marker('by-ref');
    $rl = rl_new(['retry_count' => 0, 'on_lost' => function ($l) use (&$rl, $m) {}]);
}

// 2. a closure bound to an object that holds the RedLock
final class Holder
{
    public RedLock $rl;
    public Marker $m;
    public function __construct()
    {
        $this->m = new Marker('bound');
        $this->rl = rl_new(['retry_count' => 0, 'on_lost' => function ($l) { $this->m; }]);
    }
}

// 3. the cycle, with a lock taken (on_lost from the constructor) and released,
//    its Lock kept inside the cycle too
function cycle_with_lock(string $res): void
{
    $m = new Marker('with-lock');
    $lock = null;
    $rl = rl_new(['retry_count' => 0, 'on_lost' => function ($l) use (&$rl, &$lock, $m) {}]);
    $lock = $rl->lock($res, 10000);
    var_dump($lock instanceof RedLock\Lock, $lock->release());
}

gc_collect_cycles();
cycle_by_ref();
new Holder();
cycle_with_lock($res);
echo "before: ", json_encode($freed), "\n";
$n = gc_collect_cycles();
echo "collected: ", var_export($n > 0, true), "\n";
sort($freed);
echo "after: ", json_encode($freed), "\n";

// a live cycle is not freed: the constructor's callable still runs, with its RedLock
$told = [];
$keep = rl_new(['retry_count' => 0, 'on_lost' => function ($l) use (&$keep, &$told) {
    $told[] = [$l->resource, $keep->quorum()];
}]);
gc_collect_cycles();
$k = $keep->lock($res . ':k', 200);
$t0 = hrtime(true);
while (!$told && rl_ms($t0) < rl_slack(5000)) {
}
echo "kept and told: ", json_encode($told === [[$res . ':k', 3]]), "\n";
rl_del($res, $res . ':k');
?>
--EXPECT--
bool(true)
bool(true)
before: []
collected: true
after: ["bound","by-ref","with-lock"]
kept and told: true
