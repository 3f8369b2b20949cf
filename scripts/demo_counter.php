<?php
// demo_counter.php -- one worker of the demo: increments a shared file counter under the lock.
// Read, pause, write: without mutual exclusion concurrent workers lose updates.
[$_, $file, $iterations] = $argv;
$rl = new RedLock(explode(',', getenv('REDLOCK_TEST_NODES')), ['retry_count' => 200, 'retry_delay' => 5, 'retry_jitter' => 5]);
for ($i = 0; $i < (int)$iterations; $i++) {
    $rl->synchronized('demo:counter', 5000, function () use ($file) {
        $n = (int)file_get_contents($file);
        usleep(random_int(0, 2000));
        file_put_contents($file, (string)($n + 1));
    });
}
