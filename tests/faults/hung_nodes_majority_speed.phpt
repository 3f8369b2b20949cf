--TEST--
Hung nodes (SIGSTOP): with 2 of 5 hung, lock/extend/isLocked/release run at the healthy majority's speed, not the node timeout; with 3 hung each call ends within the timeout plus a margin
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// a long node timeout: any wait on a hung node would show as >= 1000 ms
$rl = rl_new(['retry_count' => 0, 'connect_timeout' => 1000, 'timeout' => 1000]);
$res = rl_name('hung_majority');
$warm = $rl->lock($res, 5000);          // connections open before the nodes hang
$warm->release();

rl_node_ctl('pause', 2);
rl_node_ctl('pause', 4);
$times = [];
$t = hrtime(true); $lock = $rl->lock($res, 5000); $times['lock'] = rl_ms($t);
$t = hrtime(true); $ext = $lock?->extend(6000); $times['extend'] = rl_ms($t);
$t = hrtime(true); $held = $rl->isLocked($res); $times['isLocked'] = rl_ms($t);
$t = hrtime(true); $rel = $lock?->release(); $times['release'] = rl_ms($t);
var_dump($lock instanceof RedLock\Lock, $ext, $held, $rel);
foreach ($times as $op => $ms) {
    // the three live nodes answer in about a millisecond; 250 ms leaves room for a loaded machine
    echo "$op at majority speed: ", $ms < 250 ? 'yes' : "no ($ms ms)", "\n";
}

// a third node hangs: no quorum can answer, each call is bounded by the timeout
rl_node_ctl('pause', 5);
$rl2 = rl_new(['retry_count' => 0, 'connect_timeout' => 200, 'timeout' => 200]);
foreach (['lock' => fn() => $rl2->lock($res, 5000), 'isLocked' => fn() => $rl2->isLocked($res)] as $op => $fn) {
    $t = hrtime(true);
    try {
        $fn();
        echo "$op: no exception\n";
    } catch (RedLock\QuorumException $e) {
        $ms = rl_ms($t);
        echo "$op: QuorumException, bounded: ", $ms < 200 + 300 ? 'yes' : "no ($ms ms)", "\n";
    }
}
foreach ([2, 4, 5] as $i) rl_node_ctl('resume', $i);

// after resuming, late replies are dropped and each command gets its own answer
$ok = 0;
for ($i = 0; $i < 20; $i++) {
    $l = $rl->lock("$res:$i", 5000);
    $ok += $l && $rl->isLocked("$res:$i") && $l->release() && !$rl->isLocked("$res:$i");
}
echo "commands after resume answered correctly: $ok of 20\n";
for ($i = 0; $i < 20; $i++) rl_del("$res:$i");
rl_del($res);
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
lock at majority speed: yes
extend at majority speed: yes
isLocked at majority speed: yes
release at majority speed: yes
lock: QuorumException, bounded: yes
isLocked: QuorumException, bounded: yes
commands after resume answered correctly: 20 of 20
