--TEST--
Passwords: the copies of a node's settings (rl_node_conf_copy, the glue's) leave no piece of the password on the stack (a strdup() moves it through the SIMD registers, which the dynamic linker's lazy binding saves there), and a URI whose password fails to percent-decode leaves no decoded piece in freed memory: fresh processes, read from outside
--EXTENSIONS--
redlock
--SKIPIF--
<?php
require __DIR__ . '/../skipif.inc';
if (!is_readable('/proc/self/maps')) die('skip needs /proc/PID/maps and /proc/PID/mem');
// (as auth_password_not_in_memory.phpt: the scan of all of valgrind's or ASan's memory takes minutes)
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the scan of the whole address space is too slow under valgrind/ASan');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// Each case is a new PHP process (a function's first call through the PLT
// binds it, once per process), which reads the password and the URI holding
// it from files of their own (not from its environment or arguments: those
// are on its stack; nor out of a JSON text or by concatenation: PHP would
// copy them with memcpy() itself), gives a URI whose password fails to
// percent-decode, sets up nodes with a password (in an array and in a URI),
// takes and releases a lock with each, one with auto_extend (the watchdog's
// copies of the settings) and one that waits (its subscribers' copies), says
// "ready" and waits; this process then reads its memory (/proc/PID/mem) for:
// - the good password's last 24 bytes on the main thread's stack (its live
//   copies are in the heap: the PHP strings, the connections' settings);
//   8 processes, resource names of several lengths (how deep the calls run);
// - the last 24 bytes of a bad password as they read once percent-decoded
//   (a "%21" every 10 bytes; every copy of it in the child has them encoded),
//   anywhere; 2 processes whose last call is a second bad URI (no call after
//   it may reuse its freed block, whose start malloc writes over; a call that
//   deep writes over the stack, so those two are not looked at for the first).
// LD_BIND_NOT: every call through the PLT goes through the dynamic linker,
// which saves the vector registers on the stack each time (not only at a
// function's first call), so what a copy left there is seen wherever it is.
// On 574973c: 4 pieces of the good password's end on the stack of every
// process (3 without LD_BIND_NOT; none without the auto_extend lock and the
// wait), the decoded bad password in both of the others. Whether a copy's
// registers are saved depends on the calls that follow it: the C unit test
// secret_copy_no_simd reads the registers right after rl_node_conf_copy.
$user = 'rl_cpy_' . bin2hex(random_bytes(3));
$pw = 'Cpy-' . bin2hex(random_bytes(60));
$bad = fn(int $n) => 'Bad-' . implode('%21', str_split(bin2hex(random_bytes($n)), 10));
$short = $bad(40);
$long = $bad(150);
$needleGood = substr($pw, -24);
$needleBad = substr(rawurldecode($long), -24);
$admin = rl_redis(rl_nodes()[0]);
var_dump($admin->cmd('ACL', 'SETUSER', $user, 'on', '#' . hash('sha256', $pw), '~*', '&*', '+@all'));
$res = rl_name('pw_copy');
$child = <<<'PHP'
[$user, $bads, $key] = json_decode(file_get_contents(getenv('RL_COPY_CASE')), true);
$pw = file_get_contents(getenv('RL_COPY_CASE') . '.pw');
$uri2 = file_get_contents(getenv('RL_COPY_CASE') . '.uri');
$badUri = function (string $bad) {
    try {
        new RedLock(["redis://u:$bad%zz@127.0.0.1:" . rl_port(2), rl_nodes()[2]]);
        echo "bad URI accepted\n";
    } catch (ValueError $e) {
    }
};
$badUri($bads[0]);
$node1 = ['host' => '127.0.0.1', 'port' => rl_port(1), 'user' => $user, 'password' => $pw];
$ok = 0;
foreach ([$node1, $uri2] as $n) {
    $rl = new RedLock([$n, ...array_slice(rl_nodes(), 1)], ['retry_count' => 0, 'timeout' => 1000]);
    $l = $rl->lock($key, 10000);
    $ok += $l !== null && $l->release();
}
$l = $rl->lock("$key:w", 10000, ['auto_extend' => true]);
$l && $l->release();
rl_set_on([2, 3, 4, 5], "$key:b", 'foreign', 100);
$l = $rl->lock("$key:b", 10000, ['wait' => (int) rl_slack(3000)]);
$l && $l->release();
if (isset($bads[1])) $badUri($bads[1]);
echo "ready $ok\n";
fgets(STDIN);
PHP;
$file = tempnam(sys_get_temp_dir(), 'rlcopy');
file_put_contents("$file.php", "<?php\nrequire " . var_export(__DIR__ . '/../config.inc', true) . ";\n" . $child);
file_put_contents("$file.pw", $pw);
file_put_contents("$file.uri", "redis://$user:" . rawurlencode($pw) . '@127.0.0.1:' . rl_port(1) . '/1');
$problems = [];
$clean = 0;
$cases = [[1, false], [10, false], [20, false], [30, false], [40, false], [50, false], [60, false], [80, false],
    [30, true], [60, true]];
foreach ($cases as [$len, $decode]) {
    $name = "name +$len" . ($decode ? ', bad URI last' : '');
    file_put_contents($file, json_encode([$user, $decode ? [$short, $long] : [$short], "$res:" . str_repeat('x', $len)]));
    // exec: the pid is the child's own; LD_BIND_NOT: above
    $p = proc_open('exec ' . rl_php_cmd() . ' -f ' . escapeshellarg("$file.php"),
        [['pipe', 'r'], ['pipe', 'w'], ['file', '/dev/null', 'w']], $pipes, null, ['RL_COPY_CASE' => $file, 'LD_BIND_NOT' => '1'] + getenv());
    $pid = proc_get_status($p)['pid'];
    stream_set_timeout($pipes[1], (int) rl_slack(30));
    $line = (string) fgets($pipes[1]);
    $found = str_starts_with($line, 'ready 2') ? rl_copies_in_process($pid, [$needleGood, $needleBad]) : null;
    fwrite($pipes[0], "\n");
    fclose($pipes[0]);
    $rest = stream_get_contents($pipes[1]);
    fclose($pipes[1]);
    proc_close($p);
    if ($found === null) {
        $problems[] = "$name: the child failed or its memory could not be read (" . substr(trim($line . $rest), 0, 300) . ')';
    } elseif (!$decode && $found['stack'][0]) {
        $problems[] = "$name: the good password's end on the stack ({$found['stack'][0]})";
    } elseif ($decode && ($n = $found['stack'][1] + $found['other'][1])) {
        $problems[] = "$name: the decoded bad password in memory ($n)";
    } else {
        $clean++;
    }
}
foreach (['', '.php', '.pw', '.uri'] as $ext) @unlink($file . $ext);
echo "processes without a piece of a password where none may be: $clean of ", count($cases), "\n";
echo $problems ? implode("\n", $problems) . "\n" : '';
var_dump($admin->cmd('ACL', 'DELUSER', $user));
?>
--EXPECT--
string(2) "OK"
processes without a piece of a password where none may be: 10 of 10
int(1)
