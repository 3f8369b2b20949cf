--TEST--
Restarted nodes: a node whose wall clock steps forward (its keys expire early) is out of the quorum for the grace from the step, seen by a TIME pipelined at most once a second ahead of a SET
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc';
if (getenv('VALGRIND_OPTS') !== false) die('skip its grace and validity times cannot be judged under valgrind');
if (!trim((string) shell_exec('command -v cc'))) die('skip no C compiler for the clock-shifting library');
?>
--FILE--
<?php
require __DIR__ . '/restart.inc';
// node 1 runs again under tests/restart/clockshift.c: its wall clock is ours
// plus the microseconds in $file
$dir = sys_get_temp_dir() . '/rt-clock-' . getmypid();
@mkdir($dir);
$so = "$dir/clockshift.so";
exec('cc -shared -fPIC -O1 -o ' . escapeshellarg($so) . ' ' . escapeshellarg(__DIR__ . '/clockshift.c') . ' -ldl 2>&1', $o, $rc);
if ($rc !== 0) { echo "cc failed: ", implode("\n", $o), "\n"; exit; }
$file = "$dir/offset";
file_put_contents($file, pack('q', 0));
$port = rl_port(1);
rl_node_ctl('kill', 1);
$pid = (int) shell_exec('RT_CLOCK_FILE=' . escapeshellarg($file) . ' LD_PRELOAD=' . escapeshellarg($so)
    . " redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no --protected-mode no"
    . ' > ' . escapeshellarg("$dir/node.log") . ' 2>&1 & echo $!');
file_put_contents(rl_nodes_dir() . '/rt-clock.pid', $pid);
$t0 = hrtime(true);
while (!rl_ping(rl_nodes()[0]) && rl_ms($t0) < 5000) usleep(20000);
echo "shifted node up: ", rl_ping(rl_nodes()[0]) ? 'yes' : 'no', "\n";

$p = rt_prefix('clock');
$ttl = 6000;
$rl = rl_new(['prefix' => $p, 'restart_grace' => 'auto']);
$a = rt_lock_on_three($rl, $p, 'r', $ttl); // (a fresh prefix: node 1 votes at once)
usleep(1100000);                              // the clock is compared at most once a second
file_put_contents($file, pack('q', 60 * 1000000)); // +60 s: A's key on node 1 expires now
echo "A's key on node 1 gone: ", rl_values($p . 'r')[1] === null ? 'yes' : 'no', "\n";
$early = 0;
$why = null;
[$b, $ms] = rt_try_until($rl, 'r', 1000, rl_slack(2 * $ttl), 50, function ($l, $ms) use ($a, $rl, &$early, &$why) {
    if ($l && $a->isValid()) $early++;
    if (!$l && $why === null) $why = $rl->stats()['nodes'][rl_nodes()[0]]['not_voting_why'];
});
echo "B acquired while A valid: $early\n";
echo "node 1 while out: ", preg_replace('/\d+/', 'N', (string) $why), "\n";
echo "B acquired after A's validity: ", $b ? 'yes' : 'no', "\n";
if ($b) $b->release();
rl_del($p . 'r');
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
$f = rl_nodes_dir() . '/rt-clock.pid';
$pid = (int) @file_get_contents($f);
if ($pid > 0 && str_contains((string) @file_get_contents("/proc/$pid/cmdline"), 'redis-server')) {
    exec('kill -9 ' . $pid);
    for ($i = 0; $i < 50 && file_exists("/proc/$pid"); $i++) usleep(20000);
}
@unlink($f);
rl_restore_nodes();
exec('rm -rf ' . escapeshellarg(sys_get_temp_dir() . '/rt-clock-') . '*');
?>
--EXPECT--
shifted node up: yes
A's key on node 1 gone: yes
B acquired while A valid: 0
node 1 while out: clock stepped forward N s ago, votes in N s
B acquired after A's validity: yes
