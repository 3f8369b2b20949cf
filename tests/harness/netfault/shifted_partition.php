<?php
// shifted_partition.php -- nodes 4 and 5 partitioned for NF_PARTITION s; then node 4
// heals and node 3 is partitioned at once: 1, 2, 4 are a quorum, and lock() succeeds
// within 1.5 s of the heal. Before: QuorumException for seconds (node 4's old
// connection waited for its retransmission).
require __DIR__ . '/common.inc';
$p = nf_secs('NF_PARTITION', 7);
$rl = nf_rl();
$res = nf_name('shift');
for ($i = 0; $i < 5; $i++) ($rl->lock($res, 2000))?->release();
nf_partition(4);
nf_partition(5);
$end = nf_now() + $p;
while (nf_now() < $end) { ($rl->lock($res, 2000))?->release(); usleep(20000); }
nf_heal(4);
nf_partition(3);
$t0 = nf_now();
$limit = $t0 + 4 * $p + 10;
$got = null; $fails = 0; $last = '';
while (nf_now() < $limit) {
    try {
        $l = $rl->lock($res, 2000);
        if ($l) { $got = nf_now() - $t0; $l->release(); break; }
        $last = 'null';
    } catch (RedLock\QuorumException $e) { $fails++; $last = $e->getMessage(); }
    usleep(20000);
}
nf_heal(3);
nf_heal(5);
nf_result('shifted_partition', $got !== null && $got < 1.5, sprintf('lock() succeeded %s after the heal of node 4 (limit 1.5 s), %d QuorumException before%s',
    $got === null ? 'never' : sprintf('%.2f s', $got), $fails, $fails ? "; last: " . substr($last, 0, 200) : ''));
