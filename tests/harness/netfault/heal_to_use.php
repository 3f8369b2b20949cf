<?php
// heal_to_use.php -- a node partitioned silently for NF_PARTITION s (7 by default: the
// kernel's retransmission gap is then 6.4 s) is used again within 1 s of the heal
// (docs/api.md "Partitions": 1 s, or twice its timeout if longer), while a client goes on
// locking every 20 ms. Before: the old connection waited for its next retransmission.
require __DIR__ . '/common.inc';
$p = nf_secs('NF_PARTITION', 7);
$rl = nf_rl();
$res = nf_name('heal');
for ($i = 0; $i < 5; $i++) ($rl->lock($res, 2000))?->release();
if (nf_ok($rl, 5) === 0) nf_result('heal_to_use', false, 'node 5 never answered before the partition');
nf_partition(5);
$end = nf_now() + $p;
while (nf_now() < $end) { ($rl->lock($res, 2000))?->release(); usleep(20000); }
$base = nf_ok($rl, 5);
nf_heal(5);
$t0 = nf_now();
$limit = $t0 + 4 * $p + 10; // (the old code's gap after p s is below 2 p)
while (nf_ok($rl, 5) === $base && nf_now() < $limit) { ($rl->lock($res, 2000))?->release(); usleep(20000); }
$d = nf_now() - $t0;
$used = nf_ok($rl, 5) > $base;
nf_result('heal_to_use', $used && $d < 1.0, sprintf('after a %.0f s partition node 5 used again %s %.2f s of the heal (limit 1 s); last_error: %s',
    $p, $used ? 'within' : 'not within', $d, $rl->stats()['nodes'][nf_nodes()[4]]['last_error'] ?? '-'));
