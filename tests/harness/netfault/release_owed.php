<?php
// release_owed.php -- a lock released while 2 of its 5 nodes are partitioned
// (release() is true: 3 answered) leaves no key on those 2 later than 2 s after the
// heal, while the client goes on working. Before: the release sat in the old
// connection's send queue until the kernel's next retransmission.
require __DIR__ . '/common.inc';
$p = nf_secs('NF_PARTITION', 7);
$rl = nf_rl();
$res = nf_name('owed');
$other = nf_name('other');
$l = $rl->lock($res, 120000);
if (!$l) nf_result('release_owed', false, 'lock() failed before the partition');
foreach ([4, 5] as $k) if (nf_exists($k, $res) !== true) nf_result('release_owed', false, "key not on node $k before the partition");
nf_partition(4);
nf_partition(5);
usleep(300000);
$ok = $l->release();
$end = nf_now() + $p;
while (nf_now() < $end) { ($rl->lock($other, 2000))?->release(); usleep(50000); }
nf_heal(4);
nf_heal(5);
$t0 = nf_now();
$limit = $t0 + 4 * $p + 10;
$gone = [4 => null, 5 => null];
while (nf_now() < $limit && ($gone[4] === null || $gone[5] === null)) {
    ($rl->lock($other, 2000))?->release();
    foreach ([4, 5] as $k) if ($gone[$k] === null && nf_exists($k, $res) === false) $gone[$k] = nf_now() - $t0;
    usleep(50000);
}
$d = max($gone[4] ?? INF, $gone[5] ?? INF);
nf_result('release_owed', $ok && $d < 2.0, sprintf('release() %s during a %.0f s partition of nodes 4, 5; key gone from node 4 %s, node 5 %s after the heal (limit 2 s)',
    $ok ? 'true' : 'false', $p, $gone[4] === null ? 'never' : sprintf('%.2f s', $gone[4]), $gone[5] === null ? 'never' : sprintf('%.2f s', $gone[5])));
