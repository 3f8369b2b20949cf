--TEST--
Nodes: the construction-time same-server check resolves names once per worker and node set (60 s): a second construction with the same nodes opens /etc/hosts no more; another node set is resolved again; a duplicate is still refused every time
--EXTENSIONS--
redlock
--SKIPIF--
<?php
// no node is needed: nothing connects at construction
if (trim((string) shell_exec('command -v strace')) === '') die('skip strace not installed (scripts/deps.sh installs it)');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// every node on one port, named by host: the check must resolve "localhost"
// (glibc reads /etc/hosts); nothing is connected at construction
$code = <<<'PHP'
$a = ['redis://localhost:7001', 'redis://127.0.0.2:7001', 'redis://127.0.0.3:7001'];
$b = ['redis://localhost:7002', 'redis://127.0.0.2:7002', 'redis://127.0.0.3:7002'];
$mark = fn(string $m) => file_put_contents('/dev/null', "MARK-$m");
$mark('a1'); new RedLock($a);
$mark('a2'); new RedLock($a);
$mark('b1'); new RedLock($b);
$mark('a3'); new RedLock($a);
$mark('dup');
foreach ([1, 2] as $k) {
    try {
        new RedLock(['redis://localhost:7003', 'redis://127.0.0.1:7003', 'redis://127.0.0.3:7003']);
        echo "dup $k accepted\n";
    } catch (ValueError $e) {
        echo "dup $k: ", str_contains($e->getMessage(), 'the same server as') ? 'refused' : $e->getMessage(), "\n";
    }
}
$mark('end');
PHP;
$file = tempnam(sys_get_temp_dir(), 'rlst');
$trace = "$file.strace";
file_put_contents($file, "<?php\n$code");
exec('timeout 30 strace -f -e trace=openat,write -o ' . escapeshellarg($trace) . ' ' . rl_php_cmd() . ' -f '
    . escapeshellarg($file) . ' 2>&1', $out, $rc);
echo implode("\n", $out), "\n";
// /etc/hosts opened between two marks = that construction resolved names
$seg = '';
$opens = [];
foreach (file($trace) ?: [] as $line) {
    if (preg_match('/"MARK-([a-z0-9]+)"/', $line, $m)) {
        $seg = $m[1];
        $opens[$seg] ??= 0;
    } elseif ($seg !== '' && str_contains($line, '"/etc/hosts"')) {
        $opens[$seg]++;
    }
}
unlink($file);
unlink($trace);
foreach (['a1', 'a2', 'b1', 'a3', 'dup'] as $s) {
    echo "$s resolved: ", ($opens[$s] ?? 0) > 0 ? 'yes' : 'no', "\n";
}
echo "rc: $rc\n";
?>
--EXPECT--
dup 1: refused
dup 2: refused
a1 resolved: yes
a2 resolved: no
b1 resolved: yes
a3 resolved: no
dup resolved: yes
rc: 0
