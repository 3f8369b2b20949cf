--TEST--
AUTH: no copy of the AUTH command (the password in clear) stays in the process's memory once it is written, also where the output buffer grew past it or was reset
--EXTENSIONS--
redlock
--SKIPIF--
<?php
require __DIR__ . '/../skipif.inc';
if (!is_readable('/proc/self/maps') || @fopen('/proc/self/mem', 'rb') === false) die('skip needs /proc/self/maps and /proc/self/mem');
// valgrind's and ASan's own memory is mapped into the process too: a scan of
// all of it would take minutes, and their allocators keep freed blocks apart
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the scan of the whole address space is too slow under valgrind/ASan');
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
// Issue 19, item 9: AUTH was written into a connection's output buffer, the
// SCRIPT LOADs behind it grew that buffer, and realloc() freed the old block
// with the password in it; the buffer's resets did not wipe it either.
// The scan looks for what only our buffers ever hold: the password as RESP
// encodes it, followed by "\r\n" (its end: the start may have been written
// over; rl_resp_copies_in_memory() in config.inc). The password itself is in
// the PHP string of this script and in the connection's settings (kept to
// reconnect; wiped when freed), both followed by a NUL: those are the
// caller's and not counted.
// The ACL user gets the password's SHA-256, so no client of this test ever
// encodes it either.
$user = 'rl_mem_' . bin2hex(random_bytes(3));
// long: the commands written over the AUTH later are shorter than it
$pw = 'Mem-' . bin2hex(random_bytes(150));
$admin = rl_redis(rl_nodes()[0]);
var_dump($admin->cmd('ACL', 'SETUSER', $user, 'on', '#' . hash('sha256', $pw), '~*', '&*', '+@all'));
$node1 = ['host' => '127.0.0.1', 'port' => rl_port(1), 'user' => $user, 'password' => $pw];
$res = rl_name('auth_mem');
$ok = 0;
// new connections with AUTH: command connections (4 databases, persistent
// or not), subscribers (a contended wait: its subscriptions are confirmed,
// so their AUTH is written too), the watchdog's. An AUTH not written yet is
// still needed; every one is written before the scan.
foreach ([true, false] as $persistent) {
    for ($db = 0; $db < 4; $db++) {
        $rl = new RedLock([$node1 + ['database' => $db], ...array_slice(rl_nodes(), 1)],
            ['retry_count' => 0, 'timeout' => 1000, 'persistent' => $persistent]);
        $key = "$res:" . (int) $persistent . ":$db";
        $l = $rl->lock("$key:a", 10000);
        $ok += $l !== null && $l->release();
        rl_set_on([2, 3, 4, 5], "$key:b", 'foreign', 100); // until it expires
        $l = $rl->lock("$key:b", 10000, ['wait' => (int) rl_slack(3000)]);
        $ok += $l !== null && $l->release();
        $l = $rl->lock("$key:c", 10000, ['auto_extend' => true]);
        $ok += $l !== null && $l->release();
    }
}
echo "locks taken and released: $ok\n";

[$found, $scanned] = rl_resp_copies_in_memory($pw);
echo "memory scanned: ", $scanned > (1 << 20) ? 'yes' : "no ($scanned bytes)", "\n";
echo "copies of the AUTH command in memory: $found\n";
var_dump($admin->cmd('ACL', 'DELUSER', $user));
?>
--EXPECT--
string(2) "OK"
locks taken and released: 24
memory scanned: yes
copies of the AUTH command in memory: 0
int(1)
