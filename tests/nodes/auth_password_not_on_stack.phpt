--TEST--
AUTH: no copy of the AUTH command is spilled onto the stack from the SIMD registers (a memcpy() of it leaves it there; the dynamic linker's lazy binding saves them with xsavec at a process's first call through the PLT): fresh processes, resource names of several lengths
--EXTENSIONS--
redlock
--SKIPIF--
<?php
require __DIR__ . '/../skipif.inc';
if (!is_readable('/proc/self/maps') || @fopen('/proc/self/mem', 'rb') === false) die('skip needs /proc/self/maps and /proc/self/mem');
// (as auth_password_not_in_memory.phpt: the scan of all of valgrind's or ASan's memory takes minutes)
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the scan of the whole address space is too slow under valgrind/ASan');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// What the stack keeps depends on how deep each call runs, and the spill
// happens once per symbol and process (the lazy binding): so each case is a
// new process. On 8c14aa6, one process per name length 1..120: two copies
// with names 20-60 bytes long, none with the shortest nor past 80.
$user = 'rl_stk_' . bin2hex(random_bytes(3));
$pw = 'Stk-' . bin2hex(random_bytes(150));
$admin = rl_redis(rl_nodes()[0]);
var_dump($admin->cmd('ACL', 'SETUSER', $user, 'on', '#' . hash('sha256', $pw), '~*', '&*', '+@all'));
$res = rl_name('auth_stack');
$child = <<<'PHP'
[$user, $pw, $key] = json_decode((string) getenv('RL_STACK_CASE'), true);
$node1 = ['host' => '127.0.0.1', 'port' => rl_port(1), 'user' => $user, 'password' => $pw];
$rl = new RedLock([$node1, ...array_slice(rl_nodes(), 1)], ['retry_count' => 0, 'timeout' => 1000, 'persistent' => true]);
$ok = 0;
$l = $rl->lock("$key:a", 10000);
$ok += $l !== null && $l->release();
rl_set_on([2, 3, 4, 5], "$key:b", 'foreign', 100); // until it expires: a wait, its subscribers' AUTH
$l = $rl->lock("$key:b", 10000, ['wait' => (int) rl_slack(3000)]);
$ok += $l !== null && $l->release();
[$found, $scanned] = rl_resp_copies_in_memory($pw);
echo json_encode([$ok, $found, $scanned > (1 << 20)]);
PHP;
$bad = [];
$cases = 0;
foreach ([1, 10, 20, 30, 40, 50, 60, 80] as $len) {
    putenv('RL_STACK_CASE=' . json_encode([$user, $pw, "$res:" . str_repeat('x', $len)]));
    [$rc, $out] = rl_php_child($child, 30);
    $r = json_decode(trim(substr($out, (int) strrpos($out, '['))), true);
    if ($rc !== 0 || !is_array($r) || $r[0] !== 2 || $r[2] !== true) {
        $bad[] = "name +$len: the child failed (rc $rc: " . substr($out, 0, 300) . ")";
    } elseif ($r[1] > 0) {
        $bad[] = "name +$len: {$r[1]} copies";
    } else {
        $cases++;
    }
}
putenv('RL_STACK_CASE');
echo "processes that took, waited for and released their locks and scanned their memory, no copy found: $cases of 8\n";
echo $bad ? implode("\n", $bad) . "\n" : '';
var_dump($admin->cmd('ACL', 'DELUSER', $user));
?>
--EXPECT--
string(2) "OK"
processes that took, waited for and released their locks and scanned their memory, no copy found: 8 of 8
int(1)
