<?php
// mem_request.php PHP SO NODES — per-request memory overhead of the loaded extension:
// fresh `php -n` processes with and without `-d extension=SO`, comparing the Zend heap
// (memory_get_usage) and the process RSS at request start, and after constructing a
// RedLock over NODES and doing one lock+release cycle. Prints JSON.
[$_, $php, $so, $nodes] = $argv;
$probe = <<<'PHP'
$rss = function () { preg_match('/VmRSS:\s+(\d+)/', file_get_contents('/proc/self/status'), $m); return (int)$m[1] * 1024; };
$r = ['heap' => memory_get_usage(), 'heap_real' => memory_get_usage(true), 'rss' => $rss()];
if (getenv('RL_NODES') && class_exists('RedLock')) {
    $rl = new RedLock(explode(',', getenv('RL_NODES')), ['retry_count' => 0]);
    $l = $rl->lock('bench:memreq:' . getmypid(), 10000);
    $l && $l->release();
    $r += ['heap_after_cycle' => memory_get_usage(), 'rss_after_cycle' => $rss(), 'peak_after_cycle' => memory_get_peak_usage()];
}
echo json_encode($r);
PHP;
function run(array $cmd, array $env = []): array {
    $p = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env + getenv());
    $out = stream_get_contents($pipes[1]);
    $err = stream_get_contents($pipes[2]);
    if (proc_close($p) !== 0 || !is_array($j = json_decode($out, true))) {
        fwrite(STDERR, "mem_request: failed: " . implode(' ', $cmd) . "\n$err\n");
        exit(1);
    }
    return $j;
}
$med = function (array $runs, string $k) { $v = array_column($runs, $k); sort($v); return $v[intdiv(count($v), 2)]; };
$without = $with = $cycle = [];
for ($i = 0; $i < 5; $i++) {
    $without[] = run([$php, '-n', '-r', $probe]);
    $with[] = run([$php, '-n', '-d', "extension=$so", '-r', $probe]);
    $cycle[] = run([$php, '-n', '-d', "extension=$so", '-r', $probe], ['RL_NODES' => $nodes]);
}
echo json_encode([
    'heap_without' => $med($without, 'heap'), 'heap_with' => $med($with, 'heap'),
    'startup_heap_overhead' => $med($with, 'heap') - $med($without, 'heap'),
    'startup_rss_overhead' => $med($with, 'rss') - $med($without, 'rss'),
    'heap_after_construct_and_cycle' => $med($cycle, 'heap_after_cycle') - $med($without, 'heap'),
    'rss_after_construct_and_cycle' => $med($cycle, 'rss_after_cycle') - $med($without, 'rss'),
]), "\n";
