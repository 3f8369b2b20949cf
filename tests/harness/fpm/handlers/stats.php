<?php
// This worker's stats() (pool-wide counters, kept across requests).
require __DIR__ . '/_rl.php';
$rl = rl_make();
if (rl_param('RL_SLEEP_MS') !== null) {
    usleep((int)rl_param('RL_SLEEP_MS') * 1000);
}
rl_result(['stats' => $rl->stats()]);
