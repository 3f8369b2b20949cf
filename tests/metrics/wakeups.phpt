--TEST--
RedLock::metrics(): redlock_wakeups_total counts a waiting lock() woken by another process' release (wait, wake_on_release), not a polling one (wake_on_release => false)
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../wait/wait.inc';
require __DIR__ . '/metrics.inc';
function wakeups(): int { return rlm_counter(rlm_parse(RedLock::metrics()), 'redlock_wakeups_total'); }

// the holder (a forked process: it shares the table) keeps the lock long enough for the waiter
// to be subscribed and waiting (scaled: a slow machine, valgrind); the retry timer is far beyond
// the release, so only a wake-up ends the wait before it
$opts = ['wait' => (int) rl_slack(10000), 'retry_delay' => (int) rl_slack(3000), 'retry_jitter' => 0];
echo "at start: ", wakeups(), "\n";
foreach ([true, false] as $wake) {
    $res = rl_name('mwake_' . (int) $wake);
    $h = wait_holder($res, (int) rl_slack(300));
    $before = rlm_parse(RedLock::metrics());
    $rl = rl_new();
    // (polling: a shorter timer, still after the release)
    $l = $rl->lock($res, 10000, ['wake_on_release' => $wake] + ($wake ? [] : ['retry_delay' => (int) rl_slack(1000)]) + $opts);
    [, $what] = wait_holder_done($h);
    $after = rlm_parse(RedLock::metrics());
    $d = fn (string $f) => rlm_counter($after, $f) - rlm_counter($before, $f);
    // (one release can end two waits: reported from fewer than a quorum of nodes once its grace ran
    // out, on a loaded machine, and again when its quorum completes, if the attempt between failed)
    $wk = $d('redlock_wakeups_total');
    echo $wake ? 'wake_on_release' : 'polling', ": acquired ", $l ? 'yes' : 'no', ", holder $what, wakeups +",
        $wk >= 1 && $wk <= 2 ? '1 or 2' : $wk, ", attempts +", $d('redlock_attempts_total') >= 2 ? '2 or more' : $d('redlock_attempts_total'), "\n";
    $l?->release();
    rl_del($res);
}
// no wait at all: nothing to wake
$res = rl_name('mwake_none');
$held = rl_new()->lock($res, 10000);
$w0 = wakeups();
var_dump(rl_new(['retry_count' => 2, 'retry_delay' => 10])->lock($res, 1000));
echo "retries without wait: wakeups +", wakeups() - $w0, "\n";
$held->release();
?>
--EXPECT--
at start: 0
wake_on_release: acquired yes, holder released, wakeups +1 or 2, attempts +2 or more
polling: acquired yes, holder released, wakeups +0, attempts +2 or more
NULL
retries without wait: wakeups +0
