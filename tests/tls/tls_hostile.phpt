--TEST--
TLS: a hostile node behind TLS (garbage, an endless bulk reply, a close during the handshake, a trickle) fails alone, bounded, memory bounded; the healthy TLS majority keeps locking
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
require __DIR__ . '/../hostile/hostile.inc';
rl_tls_require();
// TLS handshakes cost more than a plain connect on a loaded machine: wider
// timeouts than the plain hostile tests, and a bound to match
$opt = rl_tls_opts() + ['retry_count' => 0, 'connect_timeout' => rl_tls_ms(500), 'timeout' => rl_tls_ms(200)];
define('BOUND', rl_tls_ms(2500));
$cert = ['local_cert' => rl_tls_file('server.crt'), 'local_pk' => rl_tls_file('server.key')];
$good = array_map(fn($n) => "rediss://$n", rl_tls_nodes());
$res = rl_name('tls_hostile');
$rss0 = hostile_rss_kb();

foreach (['garbage', 'huge', 'close', 'trickle'] as $mode) {
    $h = hostile_start($mode, 2, __FILE__, $cert);
    [$bad1, $bad2] = hostile_addrs($h);

    // 1 hostile node of 4: the 3 healthy TLS nodes give the lock (quorum 3)
    $rl4 = new RedLock([$good[0], $good[1], "rediss://$bad1", $good[2]], $opt);
    $t0 = hrtime(true);
    $l = $rl4->lock($res, 10000);
    $ms = rl_ms($t0);
    echo "$mode: lock with 1 hostile of 4: ", $l ? 'yes' : 'no', ", bounded: ", $ms < BOUND ? 'yes' : "no ($ms ms)";
    echo ", on the 3 TLS nodes: ", $l ? rl_tls_count_value($res, $l->token) : '-';
    $t0 = hrtime(true);
    echo ", released: ", $l && $l->release() ? 'yes' : 'no';
    $ms = rl_ms($t0);
    echo ", bounded: ", $ms < BOUND ? 'yes' : "no ($ms ms)", "\n";

    // 2 hostile of 3: QuorumException naming both, with a reason
    $rl3 = new RedLock(["rediss://$bad1", $good[0], "rediss://$bad2"], $opt);
    for ($round = 1; $round <= 3; $round++) {   // again and again: reconnects, no stuck state
        $t0 = hrtime(true);
        $m = rl_quorum_message(fn() => $rl3->lock($res, 10000));
        $ms = rl_ms($t0);
        if ($round === 1 || !str_contains($m, 'could not reach a quorum') || $ms >= BOUND) {
            echo "$mode: 2 hostile of 3 (#$round): ", rl_contains($m, 'could not reach a quorum', $bad1, $bad2),
                ", bounded: ", $ms < BOUND ? 'yes' : "no ($ms ms)", "\n";
        }
    }
    $st = $rl3->stats()['nodes'];
    echo "$mode: failures counted with a reason: ", ($st[$bad1]['errors'] + $st[$bad1]['timeouts'] > 0
        && is_string($st[$bad1]['last_error']) && $st[$bad1]['last_error'] !== '') ? 'yes' : json_encode($st[$bad1]), "\n";
    if ($mode !== 'close') {
        $ev = hostile_events($h);
        echo "$mode: handshakes completed by the hostile server: ", $ev['tls'] > 0 ? 'yes' : 'no: ' . json_encode($ev), "\n";
    }
    hostile_stop($h);
}
$drss = hostile_rss_kb() - $rss0;
// under valgrind the RSS is valgrind's heap (freed blocks kept in its 20 MB
// quarantine, redzones): only a gross growth says something there, and its
// own leak check is the test of the extension's memory
$maxKb = getenv('USE_ZEND_ALLOC') === '0' ? 204800 : 20480;
echo "RSS growth bounded: ", $drss < $maxKb ? 'yes' : "no ($drss kB, bound $maxKb kB)", "\n";
echo "keys left: ", rl_tls_count_keys($res), "\n";
rl_tls_del($res);
echo "done\n";
?>
--CLEAN--
<?php
require __DIR__ . '/../hostile/hostile.inc';
hostile_clean(__FILE__);
?>
--EXPECT--
garbage: lock with 1 hostile of 4: yes, bounded: yes, on the 3 TLS nodes: 3, released: yes, bounded: yes
garbage: 2 hostile of 3 (#1): ok, bounded: yes
garbage: failures counted with a reason: yes
garbage: handshakes completed by the hostile server: yes
huge: lock with 1 hostile of 4: yes, bounded: yes, on the 3 TLS nodes: 3, released: yes, bounded: yes
huge: 2 hostile of 3 (#1): ok, bounded: yes
huge: failures counted with a reason: yes
huge: handshakes completed by the hostile server: yes
close: lock with 1 hostile of 4: yes, bounded: yes, on the 3 TLS nodes: 3, released: yes, bounded: yes
close: 2 hostile of 3 (#1): ok, bounded: yes
close: failures counted with a reason: yes
trickle: lock with 1 hostile of 4: yes, bounded: yes, on the 3 TLS nodes: 3, released: yes, bounded: yes
trickle: 2 hostile of 3 (#1): ok, bounded: yes
trickle: failures counted with a reason: yes
trickle: handshakes completed by the hostile server: yes
RSS growth bounded: yes
keys left: 0
done
