<?php
// RL_CYCLES lock+release cycles (RL_SECONDS: until that long has passed instead),
// then an optional sleep (RL_SLEEP_MS), then the pool's RedLock::metrics() (and RL_PROBE, below).
require __DIR__ . '/_rl.php';
$cycles = (int)rl_param('RL_CYCLES', '0');
$seconds = (float)rl_param('RL_SECONDS', '0');
$done = 0;
if ($cycles > 0 || $seconds > 0) {
    $rl = rl_make();
    $res = rl_param('RL_RESOURCE') . ':' . getmypid() . ':' . bin2hex(random_bytes(4));
    $t0 = microtime(true);
    for ($i = 0; $seconds > 0 ? microtime(true) - $t0 < $seconds : $i < $cycles; $i++) {
        $l = $rl->lock("$res:$i", 5000);
        if ($l && $l->release()) {
            $done++;
        }
    }
}
// RL_PROBE: paths (comma-separated): for each, could this worker list it (a directory) or open it (a file)
$probe = null;
foreach (explode(',', rl_param('RL_PROBE', '')) as $path) {
    if ($path !== '') {
        $probe[] = str_ends_with($path, '/') ? @scandir($path) !== false : @fopen($path, 'r') !== false;
    }
}
if (rl_param('RL_SLEEP_MS') !== null) {
    usleep((int)rl_param('RL_SLEEP_MS') * 1000);
}
rl_result(['done' => $done, 'metrics' => RedLock::metrics(), 'probe' => $probe]);
