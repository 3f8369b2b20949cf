<?php
// One lock/release cycle per request, through two RedLock objects on the
// same nodes (they must share the worker's pooled connections).
require __DIR__ . '/_rl.php';
$a = rl_make();
// Same nodes written as URIs: one pool keyed by node identity, so the second
// object must reuse the first one's connections.
$uris = array_map(fn($n) => "redis://$n", explode(',', rl_param('RL_NODES')));
$b = new RedLock($uris, json_decode(rl_param('RL_OPTS', '{}'), true) + ['retry_count' => 0, 'timeout' => 1000, 'connect_timeout' => 1000]);
$res = rl_param('RL_RESOURCE');
$l1 = $a->lock($res . ':a', 5000);
$l2 = $b->lock($res . ':b', 5000);
$out = [
    'a' => $l1 !== null,
    'b' => $l2 !== null,
    'ra' => $l1 ? $l1->release() : null,
    'rb' => $l2 ? $l2->release() : null,
];
if (rl_param('RL_SLEEP_MS') !== null) {
    usleep((int)rl_param('RL_SLEEP_MS') * 1000);
}
$st = $a->stats();
$out['acquired_total'] = $st['acquired'] ?? null;
rl_result($out);
