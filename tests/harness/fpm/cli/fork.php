<?php
// Fork safety, run by ForkTest with: php -n -d extension=redlock.so fork.php <nodes> <resource-prefix>
// Prints one "RESULT {json}" line; ForkTest asserts on it and re-reads Redis.
require __DIR__ . '/../RedisProbe.php';
require __DIR__ . '/../FpmHarness.php';

[, $nodeList, $prefix] = $argv;
$nodes = explode(',', $nodeList);
$out = [];

/** pooled connections of $pid: node => [local ports] */
function conns(int $pid, array $nodes): array
{
    $r = [];
    foreach ($nodes as $n) {
        $r[$n] = FpmHarness::socketPorts($pid, (int)explode(':', $n)[1]);
    }
    return $r;
}

/** For the given local ports: node => [port => last command] from CLIENT LIST */
function lastCmds(array $conns): array
{
    $r = [];
    foreach ($conns as $n => $ports) {
        $p = RedisProbe::fromAddr($n);
        $byPort = [];
        foreach ($p->clientList() as $e) {
            if (preg_match('/:(\d+)$/', $e['addr'] ?? '', $m)) {
                $byPort[(int)$m[1]] = ($e['id'] ?? '?') . '/' . ($e['cmd'] ?? '?');
            }
        }
        $p->close();
        foreach ($ports as $lp) {
            $r[$n][$lp] = $byPort[$lp] ?? 'NOT LISTED';
        }
    }
    return $r;
}

function values(array $nodes, string $key): array
{
    $v = [];
    foreach ($nodes as $n) {
        $p = RedisProbe::fromAddr($n);
        $v[] = $p->get($key);
        $p->close();
    }
    return $v;
}

$rl = new RedLock($nodes, ['retry_count' => 0, 'timeout' => 1000, 'connect_timeout' => 1000]);
$a = $rl->lock("$prefix:a", 30000);
if (!$a) {
    echo "RESULT ", json_encode(['error' => 'parent could not lock a']), "\n";
    exit(1);
}
$out['token_a'] = $a->token;
$parentConns = conns(getmypid(), $nodes);
$out['parent_conns_before'] = $parentConns;
$cmdsBefore = lastCmds($parentConns);
$out['parent_cmds_before'] = $cmdsBefore;

$tmp = tempnam(sys_get_temp_dir(), 'rlfork');
$pid = pcntl_fork();
if ($pid === -1) {
    echo "RESULT ", json_encode(['error' => 'fork failed']), "\n";
    exit(1);
}
if ($pid === 0) {
    $c = [];
    try {
        $b = $rl->lock("$prefix:b", 30000);           // through the inherited object
        $c['child_locked_b'] = $b !== null;
        $c['child_b_token'] = $b?->token;
        $c['child_b_on_nodes'] = values($nodes, "$prefix:b");
        $c['child_released_b'] = $b ? $b->release() : null;
        $c['child_release_parent_a'] = $a->release();  // must be false: not the child's lock
        $rl2 = new RedLock($nodes, ['retry_count' => 0, 'timeout' => 1000, 'connect_timeout' => 1000]);  // a new object in the child
        $d = $rl2->lock("$prefix:d", 30000);
        $c['child_locked_d'] = $d !== null;
        // The child's sockets include the inherited parent fds (plain close()
        // of those is fine); the ones it opened itself are the others.
        $c['child_conns_own'] = [];
        foreach (conns(getmypid(), $nodes) as $n => $ports) {
            $c['child_conns_own'][$n] = array_values(array_diff($ports, $parentConns[$n]));
        }
        // d is left held: the child's own request end must release it.
    } catch (Throwable $e) {
        $c['child_exception'] = get_class($e) . ': ' . $e->getMessage();
    }
    file_put_contents($tmp, json_encode($c));
    exit(0);   // normal CLI shutdown in the child (RSHUTDOWN runs)
}

$status = 0;
$deadline = microtime(true) + 10;
$w = 0;
while (($w = pcntl_waitpid($pid, $status, WNOHANG)) === 0 && microtime(true) < $deadline) {
    usleep(10000);
}
if ($w === 0) {
    posix_kill($pid, SIGKILL);
    pcntl_waitpid($pid, $status);
    $out['child_timeout'] = true;
}
$out['child_exit'] = pcntl_wexitstatus($status);
$out += json_decode((string)file_get_contents($tmp), true) ?: ['child_report_missing' => true];
@unlink($tmp);

// After the child exited.
$out['a_on_nodes_after_child'] = values($nodes, "$prefix:a");
$out['d_on_nodes_after_child'] = values($nodes, "$prefix:d");
$out['parent_conns_after_child'] = conns(getmypid(), $nodes);
$out['parent_cmds_after_child'] = lastCmds($parentConns);
$out['a_isValid'] = $a->isValid();
$cl = $rl->lock("$prefix:c", 30000);
$out['parent_locked_c'] = $cl !== null;
$out['parent_released_c'] = $cl ? $cl->release() : null;
$out['parent_released_a'] = $a->release();
$out['parent_conns_end'] = conns(getmypid(), $nodes);
echo "RESULT ", json_encode($out), "\n";
