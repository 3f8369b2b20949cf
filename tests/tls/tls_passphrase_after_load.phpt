--TEST--
TLS: once a pooled connection has loaded its passphrase-protected client key it keeps no passphrase; the connections made from it later (the subscriber of a wait, the watchdog's) use its loaded key: a wait is woken on release and auto_extend extends, on a node that wants client certificates
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
$res = rl_name('tls_pp_after');
$opts = ['tls' => ['cafile' => rl_tls_file('ca.crt'), 'local_cert' => rl_tls_file('client.crt'),
    'local_pk' => rl_tls_file('client-enc.key'), 'passphrase' => rl_tls_passphrase()],
    'retry_count' => 0, 'connect_timeout' => rl_tls_ms(1000), 'timeout' => rl_tls_ms(1000)];
$node = ['rediss://' . rl_tls_mtls()];
// the pooled connection loads the key (and wipes the passphrase)
$l = (new RedLock($node, $opts))->lock("$res:first", 5000);
echo "first lock: ", $l ? 'yes' : 'no', "\n";
$l?->release();

// a wait, woken by a holder's release: its subscriber connection is made from the pooled one
$f = sys_get_temp_dir() . '/rl-tlspp-' . getmypid();
@unlink($f);
@unlink("$f.up");
$pid = pcntl_fork();
if ($pid === 0) {
    $h = (new RedLock($node, $opts))->lock($res, 10000);
    rl_put_atomic("$f.up", $h ? 'held' : 'failed');
    usleep(400000);
    $ok = $h->release();
    file_put_contents($f, hrtime(true) . ' ' . ($ok ? 'released' : 'lost'));
    exit(0);
}
for ($i = 0; $i < 1000 && !file_exists("$f.up"); $i++) usleep(10000);
echo "holder: ", file_get_contents("$f.up"), "\n";
$rl = new RedLock($node, $opts);
$w = $rl->lock($res, 10000, ['wait' => rl_tls_ms(8000), 'retry_delay' => rl_tls_ms(3000), 'retry_jitter' => 0]);
$t = hrtime(true);
pcntl_waitpid($pid, $st);
[$rel, $what] = explode(' ', file_get_contents($f));
unlink($f);
unlink("$f.up");
echo "holder $what; acquired: ", $w ? 'yes' : 'no', "; woken, not at the timer: ",
    ($t - $rel) / 1e6 < rl_tls_ms(1000) ? 'yes' : 'no (' . ($t - $rel) / 1e6 . ' ms)', "\n";
$w?->release();

// auto_extend: the watchdog's connection is made from the pooled one too
$ext0 = $rl->stats()['auto_extended'];
$a = $rl->lock("$res:wd", 600, ['auto_extend' => true]);
usleep(rl_tls_ms(1500) * 1000);
echo "auto_extend: valid after 2.5 ttls: ", var_export($a->isValid(), true), ", extended: ",
    var_export($rl->stats()['auto_extended'] - $ext0 >= 3, true), "\n";
$a->release();
?>
--EXPECT--
first lock: yes
holder: held
holder released; acquired: yes; woken, not at the timer: yes
auto_extend: valid after 2.5 ttls: true, extended: true
