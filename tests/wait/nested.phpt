--TEST--
wait: nested synchronized() on two resources, each waking on its own release; messages of the outer resource do not end the inner wait
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
$a = rl_name('nested_a');
$b = rl_name('nested_b');
$ha = wait_holder($a, 200);
$hb = wait_holder($b, 600);
// node timeouts scaled as the judged times are: under valgrind the default 50 ms made the attempt a
// release woke fail on slow replies, and the wait ran to its retry timer
$rl = rl_new(['connect_timeout' => (int) rl_slack(200), 'timeout' => (int) rl_slack(200)]);
// a wake-up is judged at a sixth of the retry timer (500 ms of 3 s, both scaled for slow builds)
$opts = ['wait' => (int) rl_slack(5000), 'retry_delay' => (int) rl_slack(3000), 'retry_jitter' => 0];
$times = [];
$out = $rl->synchronized($a, 10000, function () use ($rl, $b, $a, $opts, &$times) {
    $times['a'] = hrtime(true);
    // noise on the outer resource's channel while the inner one waits
    $noise = pcntl_fork();
    if ($noise === 0) {
        $r = rl_redis(rl_nodes()[1]);
        for ($i = 0; $i < 20; $i++) { $r->cmd('PUBLISH', "redlock:released:$a", "1 noise$i"); usleep(10000); }
        exit(0);
    }
    $inner = $rl->synchronized($b, 10000, function (RedLock\Lock $l) use (&$times, $b) {
        $times['b'] = hrtime(true);
        return rl_count_value($b, $l->token) >= 3 ? 'a quorum' : 'no quorum';
    }, $opts);
    pcntl_waitpid($noise, $st);
    return $inner;
}, $opts);
[$ra] = wait_holder_done($ha);
[$rb, , $rb0] = wait_holder_done($hb);
echo "inner lock on: $out\n";
$woke = fn($t, $r) => ($t - $r) / 1e6 < rl_slack(500) ? 'yes' : 'no (' . round(($t - $r) / 1e6) . ' ms)';
echo "outer woke within 500 ms of its release: ", $woke($times['a'], $ra), "\n";
echo "inner woke within 500 ms of its release: ", $woke($times['b'], $rb), "\n";
echo "inner only once its holder released: ", $times['b'] > $rb0 ? 'yes' : 'no', "\n";
echo "keys left: ", rl_count_keys($a) + rl_count_keys($b), "\n";
rl_del($a, $b);
?>
--EXPECT--
inner lock on: a quorum
outer woke within 500 ms of its release: yes
inner woke within 500 ms of its release: yes
inner only once its holder released: yes
keys left: 0
