--TEST--
Pool: a connection's pool key holds a keyed hash (random key per process) of the password and the TLS passphrase, not their SHA-1 (found by scanning the worker's memory, as a core dump would show it)
--EXTENSIONS--
redlock
--SKIPIF--
<?php
if (PHP_OS_FAMILY !== 'Linux') die('skip /proc/<pid>/mem');
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the scan of the whole address space is too slow under valgrind/ASan');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
require __DIR__ . '/../tls/tls.inc';
$pw = 'pw-' . bin2hex(random_bytes(8));
$pp = 'pp-' . bin2hex(random_bytes(8));
$tls = rl_tls_built();
// the worker: constructs RedLock (the pool keys are made then; nothing connects), then waits
$code = '$n = ["redis://:" . getenv("RL_T_PW") . "@127.0.0.1:1"];'
    . 'if (getenv("RL_T_TLS")) $n[] = ["host" => "127.0.0.1", "port" => 2, "tls" => ["local_cert" => getenv("RL_T_FILE"), "passphrase" => getenv("RL_T_PP")]];'
    . '$rl = new RedLock($n); echo "ready\n"; fgets(STDIN);';
$env = ['RL_T_PW' => $pw, 'RL_T_PP' => $pp, 'RL_T_TLS' => $tls ? '1' : '', 'RL_T_FILE' => __FILE__] + getenv();
$p = proc_open('exec ' . rl_php_cmd() . ' -r ' . escapeshellarg($code), [['pipe', 'r'], ['pipe', 'w'], ['pipe', 'w']], $pipes, null, $env);
echo "worker: ", trim((string) fgets($pipes[1])), "\n";
$pid = proc_get_status($p)['pid'];

// what a plain hash of each secret would look like in memory
// (the password itself is there, in the environment: the control that the scan reads the memory)
$needles = ['sha1(password)' => sha1($pw), 'sha1(passphrase)' => sha1($pp), 'control: the password' => $pw];
$found = array_fill_keys(array_keys($needles), false);
$mem = fopen("/proc/$pid/mem", 'rb');
foreach (file("/proc/$pid/maps") as $line) {
    if (!preg_match('/^([0-9a-f]+)-([0-9a-f]+) r/', $line, $m) || str_contains($line, '[vvar')) continue;
    $start = hexdec($m[1]);
    $end = hexdec($m[2]);
    for ($off = $start; $off < $end; $off += 1 << 20) {
        if (fseek($mem, $off) !== 0) break;
        $chunk = @fread($mem, min(1 << 20, $end - $off) + 64); // (+64: a needle across two chunks)
        if ($chunk === false || $chunk === '') break;
        foreach ($needles as $k => $n) $found[$k] = $found[$k] || str_contains($chunk, $n);
    }
}
fclose($mem);
fclose($pipes[0]);
proc_close($p);
foreach ($found as $k => $f) {
    echo "$k in the worker's memory: ", $k === 'sha1(passphrase)' && !$tls ? 'no (no TLS in this build)' : var_export($f, true), "\n";
}
?>
--EXPECTF--
worker: ready
sha1(password) in the worker's memory: false
sha1(passphrase) in the worker's memory: %rfalse|no \(no TLS in this build\)%r
control: the password in the worker's memory: true
