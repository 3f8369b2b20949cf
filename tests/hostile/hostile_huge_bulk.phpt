--TEST--
Hostile node sending an enormous bulk reply ($1000000000 then a byte stream): bounded in time and memory (RSS growth < 10 MB), counted as a failure, connection reopened
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
require __DIR__ . '/hostile.inc';
// timeouts are per node: 50 ms connect + 50 ms round trip, so every call below must end
// well under BOUND ms (the trickle alone would take 6 s, the bulk 1 GB)
const BOUND = 500;
$h = hostile_start('huge', 2, __FILE__);
[$bad1, $bad2] = hostile_addrs($h);
$real = rl_nodes();
$opt = ['retry_count' => 0, 'connect_timeout' => 50, 'timeout' => 50];
$res = rl_name('hostile_huge_bulk');
$rss0 = hostile_rss_kb();

// 1 hostile node of 5: the healthy majority still gives the lock
$rl5 = new RedLock([$real[0], $real[1], $bad1, $real[2], $real[3]], $opt);
$t0 = hrtime(true);
$l = $rl5->lock($res, 5000);
$ms = rl_ms($t0);
var_dump($l instanceof RedLock\Lock);
echo "lock bounded: ", $ms < BOUND ? 'yes' : "no ($ms ms)", "\n";
echo "ours on the 4 real nodes: ", $l ? rl_count_value($res, $l->token) : '-', "\n";
var_dump($l && $l->isValid());
$t0 = hrtime(true);
var_dump($l && $l->release());
$ms = rl_ms($t0);
echo "release bounded: ", $ms < BOUND ? 'yes' : "no ($ms ms)", "\n";
echo "keys left: ", rl_count_keys($res), "\n";

// 2 hostile nodes of 3: no quorum; QuorumException naming both hostile nodes
$rl3 = new RedLock([$bad1, $real[4], $bad2], $opt);
$t0 = hrtime(true);
try {
    $rl3->lock($res, 5000);
    echo "no exception\n";
} catch (RedLock\QuorumException $e) {
    $m = $e->getMessage();
    echo "QuorumException names both hostile nodes: ",
        str_contains($m, $bad1) && str_contains($m, $bad2) ? 'yes' : "no: $m", "\n";
    // the healthy node may be listed as not awaited (the outcome was decided without it), never as failed
    echo "and not the healthy one as failed: ",
        !str_contains(explode('; not awaited: ', $m)[0], $real[4]) ? 'yes' : "no: $m", "\n";
}
$ms = rl_ms($t0);
echo "quorum failure bounded: ", $ms < BOUND ? 'yes' : "no ($ms ms)", "\n";
echo "counted as errors or timeouts: ", (hostile_failures($rl3, $bad1) > 0 && hostile_failures($rl3, $bad2) > 0) ? 'yes' : 'no', "\n";
echo "keys left: ", rl_count_keys($res), "\n";

// the next call tries the hostile nodes again
$ev0 = hostile_events($h);
$f0 = [hostile_failures($rl3, $bad1), hostile_failures($rl3, $bad2)];
$t0 = hrtime(true);
try {
    $rl3->lock($res, 5000);
    echo "no exception\n";
} catch (RedLock\QuorumException $e) {
    echo "again QuorumException\n";
}
$ms = rl_ms($t0);
echo "bounded: ", $ms < BOUND ? 'yes' : "no ($ms ms)", "\n";
$tried = fn($ev, $p) => ($ev['by_port'][$p]['accept'] ?? 0) + ($ev['by_port'][$p]['cmd'] ?? 0);
$newConn = fn($ev, $p) => $ev['by_port'][$p]['accept'] ?? 0;
for ($t = 0; $t < 50; $t++) {   // the server logs asynchronously (bounded wait)
    $ev1 = hostile_events($h);
    if ($newConn($ev1, $h['ports'][0]) > $newConn($ev0, $h['ports'][0]) && $newConn($ev1, $h['ports'][1]) > $newConn($ev0, $h['ports'][1])) {
        break;
    }
    usleep(10000);
}
[$p1, $p2] = $h['ports'];
echo "both hostile nodes tried again: ", $tried($ev1, $p1) > $tried($ev0, $p1) && $tried($ev1, $p2) > $tried($ev0, $p2)
    ? 'yes' : 'no: ' . json_encode([$ev0, $ev1]), "\n";
echo "on a new connection: ", $newConn($ev1, $p1) > $newConn($ev0, $p1) && $newConn($ev1, $p2) > $newConn($ev0, $p2) ? 'yes' : 'no', "\n";
echo "failures counted again: ", hostile_failures($rl3, $bad1) > $f0[0] && hostile_failures($rl3, $bad2) > $f0[1]
    ? 'yes' : 'no', "\n";

// repeated failures: memory stays bounded, the healthy majority keeps working
$mem0 = memory_get_usage();
$okLocks = 0;
for ($i = 0; $i < 6; $i++) {
    try {
        $rl3->lock($res, 5000);
    } catch (RedLock\QuorumException $e) {
    }
    $l = $rl5->lock($res, 5000);
    if ($l && $l->release()) {
        $okLocks++;
    }
}
unset($e);
$dmem = memory_get_usage() - $mem0;
$drss = hostile_rss_kb() - $rss0;
echo "healthy-majority locks: $okLocks of 6\n";
echo "zend memory growth < 64 kB: ", $dmem < 65536 ? 'yes' : "no ($dmem bytes)", "\n";
echo "RSS growth < 10 MB: ", $drss < 10240 ? 'yes' : "no ($drss kB)", "\n";
echo "keys left: ", rl_count_keys($res), "\n";
hostile_stop($h);
rl_del($res);
echo "done\n";
?>
--CLEAN--
<?php
require __DIR__ . '/hostile.inc';
hostile_clean(__FILE__);
?>
--EXPECT--
bool(true)
lock bounded: yes
ours on the 4 real nodes: 4
bool(true)
bool(true)
release bounded: yes
keys left: 0
QuorumException names both hostile nodes: yes
and not the healthy one as failed: yes
quorum failure bounded: yes
counted as errors or timeouts: yes
keys left: 0
again QuorumException
bounded: yes
both hostile nodes tried again: yes
on a new connection: yes
failures counted again: yes
healthy-majority locks: 6 of 6
zend memory growth < 64 kB: yes
RSS growth < 10 MB: yes
keys left: 0
done
