--TEST--
auto_extend: 5 locks one after the other: the watchdog opens one connection per node for all of them (it keeps its connections for the next lock), not one per lock
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0, 'timeout' => (int) rl_slack(200), 'connect_timeout' => (int) rl_slack(200)]);
$base = rl_name('wd_reuse');
$rl->lock("$base:warm", 5000)->release(); // the worker's own connections are open
// one probe connection per node, kept open: INFO counts every connection the server accepted
$probes = array_map(fn($a) => rl_redis($a), rl_nodes());
$accepted = fn() => array_map(fn($p) => preg_match('/total_connections_received:(\d+)/', (string) $p->cmd('INFO', 'stats'), $m) ? (int) $m[1] : -1, $probes);
$before = $accepted();
$ext0 = $rl->stats()['auto_extended'];
for ($i = 0; $i < 5; $i++) {
    $l = $rl->lock("$base:$i", 600, ['auto_extend' => true]);
    usleep((int) rl_slack(400) * 1000); // past a third of the ttl: the watchdog extends (and so connects)
    $l->release();
}
echo "every lock extended by the watchdog: ", var_export($rl->stats()['auto_extended'] - $ext0 >= 5, true), "\n";
$after = $accepted();
echo "new connections per node: ", implode(',', array_map(fn($a, $b) => $a - $b, $after, $before)), "\n";
foreach ($probes as $p) $p->close();
?>
--EXPECT--
every lock extended by the watchdog: true
new connections per node: 1,1,1,1,1
