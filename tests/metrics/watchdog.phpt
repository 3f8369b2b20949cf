--TEST--
RedLock::metrics(): the watchdog's extensions (by="watchdog") and a lock it lost (redlock_lost_total, counted once, at the end of the request that held it, not by a forked child)
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
require __DIR__ . '/metrics.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('mwd');
$l = $rl->lock($res, 300, ['auto_extend' => true]);
usleep(rl_slack(700) * 1000);
// the watchdog goes on extending meanwhile: between two stats()
$s1 = $rl->stats()['auto_extended'];
$m = rlm_parse(RedLock::metrics());
$s2 = $rl->stats()['auto_extended'];
$auto = rlm_counter($m, 'redlock_extensions_total', ['by' => 'watchdog']);
echo "watchdog extensions: ", $auto >= 2 && $s1 <= $auto && $auto <= $s2 ? 'counted' : "$auto, stats() $s1 .. $s2", "\n";
echo "by extend: ", rlm_counter($m, 'redlock_extensions_total', ['by' => 'extend']), "\n";
$l->release();

// a lock the watchdog loses (3 of 5 nodes paused) counts once, when the request that holds it ends
$b = $rl->lock("$res:b", 600, ['auto_extend' => true]);
foreach ([1, 2, 3] as $i) rl_node_ctl('pause', $i);
$t0 = hrtime(true);
while ($b->isValid() && rl_ms($t0) < 3000) usleep(10000);
foreach ([1, 2, 3] as $i) rl_node_ctl('resume', $i);
echo "lost: ", var_export(!$b->isValid(), true), ", counted before the request ends: ",
    rlm_counter(rlm_parse(RedLock::metrics()), 'redlock_lost_total'), "\n";
// a forked child's request end does not count its copy of our lost lock
if (($pid = pcntl_fork()) === 0) exit(0);
pcntl_waitpid($pid, $st);
echo "after a child's request end: ", rlm_counter(rlm_parse(RedLock::metrics()), 'redlock_lost_total'), "\n";

// a child's request holds a lock the watchdog loses, then ends
$f = sys_get_temp_dir() . "/rl-mwd-$res";
if (($pid = pcntl_fork()) === 0) {
    $rl = rl_new(['retry_count' => 0]);
    $c = $rl->lock("$res:c", 600, ['auto_extend' => true]);
    foreach ([1, 2, 3] as $i) rl_node_ctl('pause', $i);
    $t0 = hrtime(true);
    while ($c->isValid() && rl_ms($t0) < 3000) usleep(10000);
    file_put_contents($f, json_encode(['lost' => !$c->isValid(),
        'counted before the request ends' => rlm_counter(rlm_parse(RedLock::metrics()), 'redlock_lost_total')]));
    foreach ([1, 2, 3] as $i) rl_node_ctl('resume', $i);
    exit(0);
}
pcntl_waitpid($pid, $st);
echo file_get_contents($f), "\n";
unlink($f);
$m = rlm_parse(RedLock::metrics());
echo "lost: ", rlm_counter($m, 'redlock_lost_total'), ", of the prefix rltest: ",
    rlm_counter($m, 'redlock_resource_lost_total', ['resource' => 'rltest']), "\n";
rl_del($res, "$res:b", "$res:c");
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
watchdog extensions: counted
by extend: 0
lost: true, counted before the request ends: 0
after a child's request end: 0
{"lost":true,"counted before the request ends":0}
lost: 1, of the prefix rltest: 1
