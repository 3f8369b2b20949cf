<?php
// Try to lock RL_RESOURCE once (retry_count 0); report and release.
require __DIR__ . '/_rl.php';
$rl = rl_make();
$res = rl_param('RL_RESOURCE');
$lock = $rl->lock($res, (int)rl_param('RL_TTL', '10000'));
$out = ['acquired' => $lock !== null, 'token' => $lock?->token];
if ($lock && rl_param('RL_KEEP') === null) {
    $out['released'] = $lock->release();
}
if (rl_param('RL_SLEEP_MS') !== null) {
    usleep((int)rl_param('RL_SLEEP_MS') * 1000);
}
rl_result($out);
