<?php
// auto_extend inside a request: acquire RL_RESOURCE for RL_TTL ms with the
// watchdog, sleep RL_SLEEP_MS (longer than the TTL), then report whether the
// lock is still valid and whether a second RedLock object can take it.
require __DIR__ . '/_rl.php';

$rl = rl_make();
$res = rl_param('RL_RESOURCE');
$lock = $rl->lock($res, (int)rl_param('RL_TTL', '1000'), ['auto_extend' => true]);
if (!$lock) {
    rl_result(['acquired' => false]);
    return;
}
usleep(1000 * (int)rl_param('RL_SLEEP_MS', '2500'));
$other = rl_make()->lock($res, 1000);
rl_result([
    'acquired' => true,
    'valid' => $lock->isValid(),
    'remaining' => $lock->remaining(),
    'other_acquired' => $other !== null,
    'auto_extended' => $rl->stats()['auto_extended'],
]);
