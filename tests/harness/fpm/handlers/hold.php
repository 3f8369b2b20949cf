<?php
// Acquire RL_RESOURCE for RL_TTL ms, print "TOKEN <hex>", then end the
// request the way RL_END says, still holding the lock:
//   return | exit | exception | fatal | timeout (max_execution_time) |
//   sleep (RL_SLEEP_MS, for request_terminate_timeout) | drop (the
//   `if (!$rl->lock(...)) exit(1);` idiom: the Lock object is never kept)
require __DIR__ . '/_rl.php';

$rl = rl_make();
$res = rl_param('RL_RESOURCE');
$ttl = (int)rl_param('RL_TTL', '60000');
$lockOpts = json_decode(rl_param('RL_LOCK_OPTS', '{}'), true);
$end = rl_param('RL_END', 'return');

if ($end === 'drop') {
    if (!$rl->lock($res, $ttl, $lockOpts)) {
        echo "NOT ACQUIRED\n";
        exit(1);
    }
    echo "DROPPED\n";
    rl_result(['held' => $rl->isLocked($res)]);
    return;
}

$lock = $rl->lock($res, $ttl, $lockOpts);
if (!$lock) {
    echo "NOT ACQUIRED\n";
    rl_result(['acquired' => false]);
    return;
}
echo "TOKEN {$lock->token}\n";
rl_result(['acquired' => true, 'held' => $rl->isLocked($res)]);
flush();   // the test gets the token even if the worker dies

switch ($end) {
    case 'return':
        return;
    case 'exit':
        exit(3);
    case 'exception':
        throw new RuntimeException('uncaught on purpose');
    case 'fatal':
        rl_this_function_does_not_exist();
        break;
    case 'timeout':
        set_time_limit((int)rl_param('RL_LIMIT', '1'));
        $t = microtime(true);
        while (microtime(true) - $t < 20) {   // bounded busy loop, CPU time counts
        }
        echo "BUSY LOOP ENDED WITHOUT TIMEOUT\n";
        break;
    case 'sleep':
        $until = microtime(true) + (int)rl_param('RL_SLEEP_MS', '10000') / 1000;
        while (microtime(true) < $until) {
            usleep(50000);
        }
        echo "SLEEP ENDED WITHOUT KILL\n";
        break;
}
