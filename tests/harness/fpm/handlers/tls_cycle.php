<?php
// One lock/release cycle per request over TLS nodes: RL_NODES "h:p,..." become
// rediss:// URIs; RL_OPTS carries the "tls" option (the test CA).
require __DIR__ . '/_rl.php';
$uris = array_map(fn($n) => "rediss://$n", explode(',', rl_param('RL_NODES')));
$opts = json_decode(rl_param('RL_OPTS', '{}'), true) + ['retry_count' => 0, 'timeout' => 1000, 'connect_timeout' => 1000];
$rl = new RedLock($uris, $opts);
$out = ['a' => false, 'ra' => false, 'error' => null];
try {
    $l = $rl->lock(rl_param('RL_RESOURCE'), 5000);
    $out['a'] = $l !== null;
    $out['ra'] = $l ? $l->release() : null;
} catch (Throwable $e) {
    $out['error'] = get_class($e) . ': ' . $e->getMessage();
}
rl_result($out);
