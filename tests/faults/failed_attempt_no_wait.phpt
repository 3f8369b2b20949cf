--TEST--
A failed attempt does not wait for hung nodes: with 2 of 5 SIGSTOPped and the resource held elsewhere, lock() returns null in about one round trip, not the timeout; the SETs that reached the hung nodes are undone behind them
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// the timeout (1 s) well apart from a round trip (under 300 ms on a loaded machine), both scaled
$rl = rl_new(['retry_count' => 0, 'timeout' => (int) rl_slack(1000)]);
$res = rl_name('failed_no_wait');
$rl->lock("$res:warm", 1000)->release();
rl_set_on([1, 2, 3], $res, 'someone-else', 10000);
rl_node_ctl('pause', 4);
rl_node_ctl('pause', 5);
$t = hrtime(true);
$l = $rl->lock($res, 10000);
$ms = rl_ms($t);
var_dump($l);
echo "returned in about a round trip: ", $ms < rl_slack(300) ? 'yes' : "no ($ms ms)", "\n";
rl_node_ctl('resume', 4);
rl_node_ctl('resume', 5);
rl_del($res);
// bounded: nodes 4 and 5 ran our SET and then its release
$v = null;
for ($i = 0; $i < 40; $i++) {
    $rl->isLocked("$res:probe");
    $v = rl_values($res);
    if ($v[4] === null && $v[5] === null) break;
    usleep(25000);
}
echo "left on the resumed nodes: ", (int) is_string($v[4]) + (int) is_string($v[5]), "\n";
?>
--CLEAN--
<?php require __DIR__ . '/../config.inc'; rl_restore_nodes(); ?>
--EXPECT--
NULL
returned in about a round trip: yes
left on the resumed nodes: 0
