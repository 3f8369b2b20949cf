--TEST--
fencing: one node answering INCR near 2^53 (hostile or damaged) is not believed: the fence comes from the others, phase 2 does not copy the huge value to them, and later fenced locks keep working
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$prefix = rl_name('fence_hostile') . ':';
$key = $prefix . "\0redlock:fence";
$rl = rl_new(['prefix' => $prefix, 'retry_count' => 0, 'fencing' => true]);
// node 1 holds what a hostile node would answer: its INCR gives 2^53 - 1
$r = rl_redis(rl_nodes()[0]);
$r->cmd('SET', $key, '9007199254740990');
$r->close();

// several locks: in some of them node 1 is among the answers the call counts
$fences = [];
$problems = [];
for ($i = 0; $i < 6; $i++) {
    try {
        $l = $rl->lock('r', 5000);
        if (!$l instanceof RedLock\Lock) {
            $problems[] = "lock $i: null";
            continue;
        }
        if ($l->fence >= 100 || ($fences && $l->fence <= end($fences))) {
            $problems[] = "lock $i: fence {$l->fence}";
        }
        $fences[] = $l->fence;
        $l->release();
    } catch (RedLock\QuorumException $e) {
        $problems[] = "lock $i: " . $e->getMessage();
    }
}
echo "6 fenced locks, fences small and increasing: ", $problems ? implode("\n", $problems) : 'true', "\n";
$vals = rl_values($key);
$honest = array_slice($vals, 1, null, true);
echo "honest counters stay small: ", var_export(count(array_filter($honest, fn($v) => is_string($v) && (int) $v < 100)) === count($honest), true),
    " (", implode(',', array_map(fn($v) => var_export($v, true), $honest)), ")\n";
echo "node 1 not lowered: ", var_export((int) $vals[1] >= 9007199254740991, true), "\n";
rl_del($key, $prefix . 'r');
?>
--EXPECTF--
6 fenced locks, fences small and increasing: true
honest counters stay small: true (%s)
node 1 not lowered: true
