--TEST--
Worker memory: locks never released here (left to their TTL, force-released) leave nothing behind on the connection, RSS stays flat over 100000 of them
--EXTENSIONS--
redlock
--SKIPIF--
<?php
require __DIR__ . '/../skipif.inc';
// 100000 round trips: minutes under valgrind or ASan (both set USE_ZEND_ALLOC=0),
// where the RSS is the instrumentation's own heap anyway; their leak checks
// cover the extension's memory there
if (getenv('USE_ZEND_ALLOC') === '0') die('skip 100000 locks are too slow under valgrind/ASan, and RSS says nothing there');
if (!is_readable('/proc/self/status')) die('skip needs /proc/self/status (VmRSS)');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// Issue 19, item 5: each successful SET left an 8-byte "owed release" tag on
// its connection until a release was sent there, so a lock left to its TTL,
// released by another process (restore()) or force-released kept its tag for
// the worker's life (2.4 MB per 300000 locks on one node). One node: the most
// locks per second, one tag per lock.
$rl = new RedLock([rl_nodes()[0]], ['retry_count' => 0, 'timeout' => 1000, 'auto_release' => false]);
$res = rl_name('owed_rss');
function rss_kb(): int
{
    preg_match('/^VmRSS:\s+(\d+)\s+kB/m', file_get_contents('/proc/self/status'), $m);
    return (int) $m[1];
}
// 100000 locks: about 10 s idle; well inside run-tests.php's 60 s without output on a loaded machine
$N = 100000;
$bad = 0;
// a short TTL keeps the node's memory small; long enough that a lock never
// fails its validity check on a busy machine (a round trip of ~1 s)
// warm-up: every buffer, cache and PHP allocator chunk at its steady size
for ($i = 0; $i < 5000; $i++) $bad += !$rl->lock("$res:w$i", 1000);
$rss0 = rss_kb();
for ($i = 0; $i < $N; $i++) {
    $bad += !$rl->lock("$res:$i", 1000);
    if ($i % 10000 === 0) $rl->forceRelease("$res:$i"); // released without a release of ours
}
$grown = rss_kb() - $rss0;
// the old tags alone: 8 bytes x 100000 = 800 kB; the bound is well below
// that and well above the allocator's noise (a few dozen kB)
$boundKb = 400;
echo "locks failed: $bad\n";
echo "RSS growth over $N locks below $boundKb kB: ", $grown < $boundKb ? 'yes' : "no ($grown kB)", "\n";
?>
--EXPECT--
locks failed: 0
RSS growth over 100000 locks below 400 kB: yes
