--TEST--
lockAll with wait: woken when any of its resources is released (by a lockAll or a lock() holder), not at the retry timer; a lock() waiter is woken by a lockAll release
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/multi.inc';
// a retry timer far beyond the release: only a wake-up can be this fast
$opts = ['wait' => (int) rl_slack(6000), 'retry_delay' => (int) rl_slack(3000), 'retry_jitter' => 0];
$a = rl_name('w_a'); $b = rl_name('w_b'); $c = rl_name('w_c');
$cases = [
    'lockAll waits on a lockAll holder' => [[$a, $b], fn($rl) => $rl->lockAll([$c, $b], 10000, $opts)],
    'lockAll waits on a lock() holder of its 2nd resource' => [[$b], fn($rl) => $rl->lockAll([$a, $b, $c], 10000, $opts)],
    'lock() waits on a lockAll holder' => [[$a, $b, $c], fn($rl) => $rl->lock($c, 10000, $opts)],
];
foreach ($cases as $what => [$held, $take]) {
    $h = multi_holder($held, 300);
    $rl = rl_new();
    $l = $take($rl);
    $t = hrtime(true);
    [$rel, $how] = multi_holder_done($h);
    $after = ($t - $rel) / 1e6;
    echo "$what: ", $l ? 'acquired' : 'null', ", holder $how, within 1000 ms of the release: ",
        $after < rl_slack(1000) ? 'yes' : "no ($after ms)", "\n";
    foreach ($l->resources as $r) {
        if (rl_count_value($r, $l->token) < 3) echo "  $r: not ours on a quorum\n";
    }
    $l->release();
    rl_del($a, $b, $c);
}
?>
--EXPECT--
lockAll waits on a lockAll holder: acquired, holder released, within 1000 ms of the release: yes
lockAll waits on a lock() holder of its 2nd resource: acquired, holder released, within 1000 ms of the release: yes
lock() waits on a lockAll holder: acquired, holder released, within 1000 ms of the release: yes
