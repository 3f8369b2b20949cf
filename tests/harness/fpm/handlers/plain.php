<?php
// Harness self-test: no extension needed.
header('X-Test: plain');
echo "RESULT ", json_encode([
    'pid' => getmypid(),
    'sapi' => PHP_SAPI,
    'param' => $_SERVER['RL_PARAM'] ?? null,
    'redlock_loaded' => extension_loaded('redlock'),
    'redlock_class' => class_exists('RedLock', false),
]), "\n";
if (isset($_SERVER['RL_SLEEP_MS'])) {
    usleep((int)$_SERVER['RL_SLEEP_MS'] * 1000);
}
