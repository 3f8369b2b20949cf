--TEST--
wait: a waiter wakes within a few ms of a release by another process (not at its retry timer); wake_on_release => false polls
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
// a retry timer far beyond the release: only a wake-up can be this fast (the bound, 500 ms,
// is a quarter of the retry timer: room for a loaded machine, none for the timer)
$opts = ['wait' => (int) rl_slack(5000), 'retry_delay' => (int) rl_slack(2000), 'retry_jitter' => 0];
foreach ([true, false] as $wake) {
    $res = rl_name('wake_' . (int) $wake);
    $h = wait_holder($res, 300);
    $rl = rl_new();
    $l = $rl->lock($res, 10000, $opts + ['wake_on_release' => $wake]);
    $t = hrtime(true);
    [$rel, $what] = wait_holder_done($h);
    $after = ($t - $rel) / 1e6;
    echo $wake ? 'wake_on_release' : 'polling', ": acquired ", $l ? 'yes' : 'no', ", holder $what, ";
    if ($wake) {
        echo "within 500 ms of the release: ", $after < rl_slack(500) ? 'yes' : "no ($after ms)", "\n";
    } else {
        echo "at the retry timer, long after the release: ", $after > 1000 ? 'yes' : "no ($after ms)", "\n";
    }
    // (woken by the first nodes that ran the release, a SET can reach a node before the
    // holder's release does there: the lock stands on a quorum)
    echo "ours on a quorum: ", rl_count_value($res, $l->token) >= 3 ? 'yes' : 'no', "\n";
    $l->release();
    rl_del($res);
}
// several releases in a row, one waiter each time: every wake-up is fast
$res = rl_name('wake_rounds');
$rl = rl_new();
$slow = [];
for ($i = 0; $i < 5; $i++) {
    $h = wait_holder($res, 100);
    $l = $rl->lock($res, 10000, $opts);
    $t = hrtime(true);
    [$rel] = wait_holder_done($h);
    if (!$l || ($t - $rel) / 1e6 >= rl_slack(500)) $slow[] = $l ? round(($t - $rel) / 1e6) : 'none';
    $l?->release();
}
echo "5 rounds, slow ones: ", $slow ? implode(',', $slow) : 'none', "\n";
rl_del($res);
?>
--EXPECT--
wake_on_release: acquired yes, holder released, within 500 ms of the release: yes
ours on a quorum: yes
polling: acquired yes, holder released, at the retry timer, long after the release: yes
ours on a quorum: yes
5 rounds, slow ones: none
