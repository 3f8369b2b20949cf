--TEST--
TLS: no copy of the AUTH command (the password in clear) stays in the process's memory once it is written, in our buffers or OpenSSL's
--EXTENSIONS--
redlock
--SKIPIF--
<?php
require __DIR__ . '/tls.inc';
rl_tls_skipif();
if (!is_readable('/proc/self/maps') || @fopen('/proc/self/mem', 'rb') === false) die('skip needs /proc/self/maps and /proc/self/mem');
// valgrind's and ASan's own memory is mapped into the process too: a scan of
// all of it would take minutes, and their allocators keep freed blocks apart
if (getenv('USE_ZEND_ALLOC') === '0') die('skip the scan of the whole address space is too slow under valgrind/ASan');
?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
// Issue 19, item 9, over TLS (tests/nodes/auth_password_not_in_memory.phpt
// says what is scanned for and why): the connection's output buffer holds
// AUTH until SSL_write() takes it; OpenSSL encrypts it into its own record
// buffer. Before the fix the realloc()'d first blocks of the buffers kept it.
$user = 'rl_tmem_' . bin2hex(random_bytes(3));
$pw = 'TlsMem-' . bin2hex(random_bytes(150));
foreach (rl_tls_nodes() as $n) {
    $r = rl_tls_redis($n);
    $set[] = $r->cmd('ACL', 'SETUSER', $user, 'on', '#' . hash('sha256', $pw), '~*', '&*', '+@all');
    $r->close();
}
echo "ACL users: ", implode(' ', $set), "\n";
$res = rl_name('tls_mem');
$ok = 0;
foreach ([true, false] as $persistent) {
    for ($db = 0; $db < 3; $db++) {
        $nodes = [];
        foreach (rl_tls_nodes() as $n) {
            [$h, $p] = explode(':', $n);
            $nodes[] = ['host' => $h, 'port' => (int) $p, 'user' => $user, 'password' => $pw, 'database' => $db, 'tls' => true];
        }
        $rl = new RedLock($nodes, rl_tls_opts() + ['retry_count' => 0, 'persistent' => $persistent,
            'connect_timeout' => rl_tls_ms(1000), 'timeout' => rl_tls_ms(1000)]);
        for ($i = 0; $i < 2; $i++) {
            $l = $rl->lock("$res:" . (int) $persistent . ":$db:$i", 10000, $i ? ['auto_extend' => true] : []);
            $ok += $l !== null && $l->release();
        }
    }
}
echo "locks taken and released: $ok\n";
[$found, $scanned] = rl_resp_copies_in_memory($pw);
echo "memory scanned: ", $scanned > (1 << 20) ? 'yes' : "no ($scanned bytes)", "\n";
echo "copies of the AUTH command in memory: $found\n";
foreach (rl_tls_nodes() as $n) {
    $r = rl_tls_redis($n);
    $r->cmd('ACL', 'DELUSER', $user);
    $r->close();
}
?>
--EXPECT--
ACL users: OK OK OK
locks taken and released: 12
memory scanned: yes
copies of the AUTH command in memory: 0
