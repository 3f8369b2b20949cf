<?php
declare(strict_types=1);
/**
 * cron_once.php — run a cron job at most once at a time across all hosts.
 *
 * Put the same crontab line on every host; whichever run takes the lock does
 * the work, every other concurrent run exits at once with a clear message.
 *
 *     * * * * *  REDLOCK_NODES=10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379 \
 *                  php /path/to/cron_once.php nightly-report 600000
 *
 * Arguments: [job name] [lock TTL in ms]. The TTL is the safety net if the
 * host dies mid-job: pick something longer than the job can ever take.
 *
 * The lock is NOT released when the Lock object goes away (we do not even
 * keep it): the extension releases it at script end — normal end, exit(),
 * uncaught exception, fatal error — because `auto_release` is on (default).
 * Only a process killed outright (SIGKILL, power loss) leaves it to the TTL.
 *
 * Exit codes: 0 job done, 1 already running elsewhere, 2 no quorum of Redis
 * nodes reachable, 255 the job itself failed (uncaught exception).
 *
 * Demo knobs (used by tests/harness/fpm/CronOnceTest.php): CRON_ONCE_WORK_MS=<ms>
 * of simulated work, CRON_ONCE_FAIL=1 makes the job throw.
 */

$nodes = getenv('REDLOCK_NODES') ?: getenv('REDLOCK_TEST_NODES') ?: '127.0.0.1:6379';
$job = $argv[1] ?? 'nightly-report';
$ttl = (int)($argv[2] ?? 600000);
$host = gethostname() . ':' . getmypid();

if (!class_exists('RedLock')) {
    fwrite(STDERR, "cron_once: the redlock extension is not loaded\n");
    exit(2);
}

// One attempt, no retries: if another host has it, it is running right now.
$rl = new RedLock(explode(',', $nodes), ['retry_count' => 0]);

try {
    if (!$rl->lock("cron:$job", $ttl)) {
        fwrite(STDERR, "cron_once: job '$job' is already running on another host (lock cron:$job is held); exiting\n");
        exit(1);
    }
} catch (RedLock\QuorumException $e) {
    fwrite(STDERR, "cron_once: cannot reach a majority of the lock nodes, not running '$job': {$e->getMessage()}\n");
    exit(2);
}

// From here until the script ends, this host owns "cron:$job".
echo "cron_once: acquired cron:$job on $host, running\n";

function run_job(string $job): void
{
    // The real work goes here. Simulated for the demo/tests:
    $ms = (int)(getenv('CRON_ONCE_WORK_MS') ?: 0);
    $until = microtime(true) + $ms / 1000;
    while (microtime(true) < $until) {
        usleep(20000);
    }
    if (getenv('CRON_ONCE_FAIL')) {
        throw new RuntimeException("job '$job' failed");
    }
}

run_job($job);

echo "cron_once: job '$job' done\n";
// No explicit release needed: the lock is released when the script ends.
