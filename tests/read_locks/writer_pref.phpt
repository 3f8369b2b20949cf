--TEST--
Read locks, no writer starvation: while an exclusive lock() with wait waits on readers, a new reader without wait gets null and one with wait gets the lock only after that writer; a writer that gives up leaves the waiting writers at once; readers keep joining while no writer waits
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/shared.inc';
$r = rl_name('sh_wpref');
$rl = rl_new(['retry_count' => 0]);
$first = $rl->lock($r, 10000, ['shared' => true]);
echo "readers join while no writer waits: ", ($second = $rl->lock($r, 10000, ['shared' => true])) ? 'yes' : 'no', "\n";
$second->release();
$file = sys_get_temp_dir() . '/rl-wpref-' . getmypid();
@unlink($file);
$pid = pcntl_fork();
if ($pid === 0) {
    // the writer: waits (woken on release) until the reader leaves, holds 300 ms
    $w = rl_new(['retry_delay' => 50, 'retry_jitter' => 0]);
    $l = $w->lock($r, 5000, ['wait' => (int) rl_slack(8000)]);
    $t = hrtime(true);
    usleep(300000);
    // (before release(): a reader woken by it can get in before release() returns,
    // once a quorum deleted the key; what counts is that the writer went first)
    $rel = hrtime(true);
    $l?->release();
    rl_put_atomic($file, ($l ? 'acquired' : 'null') . " $t $rel");
    exit(0);
}
// the writer is waiting once every node lists it (bounded)
$t0 = hrtime(true);
while (min(sh_writers($r)) < 1 && rl_ms($t0) < rl_slack(3000)) usleep(10000);
echo "the writer waits on every node: ", json_encode(array_values(sh_writers($r))), "\n";
echo "a new reader without wait: ", var_export($rl->lock($r, 1000, ['shared' => true]), true), "\n";
$first->release();                                      // the writer goes in now
$late = $rl->lock($r, 1000, ['shared' => true, 'wait' => (int) rl_slack(8000), 'retry_delay' => 20, 'retry_jitter' => 0]);
$got = hrtime(true);
pcntl_waitpid($pid, $st);
[$what, $wIn, $wOut] = explode(' ', (string) file_get_contents($file)) + [null, 0, 0];
@unlink($file);
echo "writer: $what; the waiting reader got it after the writer's release: ", $late && $got >= (int) $wOut ? 'yes' : "no ($got, $wIn, $wOut)", "\n";
$late->release();

// a writer that gives up leaves at once: readers are not held back by it
$hold = $rl->lock($r, 10000, ['shared' => true]);
$t = hrtime(true);
$gone = rl_new(['retry_delay' => 50, 'retry_jitter' => 0])->lock($r, 5000, ['wait' => 300]);
// (its removal is sent, not awaited: read until every node ran it, bounded)
for ($t0 = hrtime(true); max(sh_writers($r)) > 0 && rl_ms($t0) < rl_slack(1000);) usleep(5000);
echo "writer gave up: ", var_export($gone, true), ", waiting writers left: ", json_encode(array_values(sh_writers($r))),
    ", a new reader: ", ($n = $rl->lock($r, 1000, ['shared' => true])) ? 'yes' : 'no', "\n";
$n->release();
$hold->release();
sh_del($r);
?>
--EXPECT--
readers join while no writer waits: yes
the writer waits on every node: [1,1,1,1,1]
a new reader without wait: NULL
writer: acquired; the waiting reader got it after the writer's release: yes
writer gave up: NULL, waiting writers left: [0,0,0,0,0], a new reader: yes
