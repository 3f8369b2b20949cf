--TEST--
auto_extend: nodes named by a host name are never looked up by the watchdog thread (the lock's own connections hand their addresses over): under strace, no thread but the main one opens /etc/hosts, while the watchdog extends
--EXTENSIONS--
redlock
--SKIPIF--
<?php
require __DIR__ . '/../skipif.inc';
if (trim((string) shell_exec('command -v strace')) === '') die('skip strace not installed (scripts/deps.sh installs it)');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// the test nodes named "localhost" (glibc reads /etc/hosts for it)
$nodes = array_map(fn($a) => 'redis://localhost:' . explode(':', $a)[1], rl_nodes());
$code = 'require ' . var_export(__DIR__ . '/../config.inc', true) . ';'
    . '$rl = new RedLock(' . var_export($nodes, true) . ', ["retry_count" => 0, "timeout" => 1000, "connect_timeout" => 1000]);'
    . '$ext0 = $rl->stats()["auto_extended"];'
    . 'for ($i = 0; $i < 2; $i++) { $l = $rl->lock(rl_name("wd_names"), 600, ["auto_extend" => true]);'
    . ' usleep(900000); echo "valid: ", var_export($l->isValid(), true), "\n"; $l->release(); }'
    . 'echo "extended by the watchdog: ", var_export($rl->stats()["auto_extended"] - $ext0 >= 4, true), "\n";';
$file = tempnam(sys_get_temp_dir(), 'rlwdn');
$trace = "$file.strace";
file_put_contents($file, "<?php\n$code");
exec('timeout 60 strace -f -e trace=openat -o ' . escapeshellarg($trace) . ' ' . rl_php_cmd() . ' -f '
    . escapeshellarg($file) . ' 2>&1', $out, $rc);
echo implode("\n", $out), "\n";
// each strace line starts with the thread's id; the main thread's is the process id
$main = null;
$opens = ['main' => 0, 'other' => 0];
foreach (file($trace) ?: [] as $line) {
    if (!preg_match('/^(\d+)\s/', $line, $m)) continue;
    $main ??= $m[1];
    if (str_contains($line, '"/etc/hosts"')) $opens[$m[1] === $main ? 'main' : 'other']++;
}
unlink($file);
unlink($trace);
echo "main thread looked the name up: ", var_export($opens['main'] > 0, true), "\n";
echo "another thread did: ", var_export($opens['other'] > 0, true), " ({$opens['other']})\n";
echo "rc: $rc\n";
?>
--EXPECT--
valid: true
valid: true
extended by the watchdog: true
main thread looked the name up: true
another thread did: false (0)
rc: 0
