--TEST--
wait: over TLS (rediss:// nodes) the subscriber connections, with the same TLS settings, wake the waiter on release
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../tls/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/../tls/tls.inc';
rl_tls_require();
$res = rl_name('tls_wait');
$f = sys_get_temp_dir() . '/rl-tlswait-' . getmypid();
@unlink($f);
$pid = pcntl_fork();
if ($pid === 0) {
    $l = rl_tls_new(['retry_count' => 0])->lock($res, 10000);
    rl_put_atomic("$f.up", $l ? 'held' : 'failed');
    usleep(400000);
    $ok = $l->release();
    file_put_contents($f, hrtime(true) . ' ' . ($ok ? 'released' : 'lost'));
    exit(0);
}
for ($i = 0; $i < 1000 && !file_exists("$f.up"); $i++) usleep(10000);
echo "holder: ", file_get_contents("$f.up"), "\n";
$l = rl_tls_new()->lock($res, 10000, ['wait' => rl_tls_ms(8000), 'retry_delay' => rl_tls_ms(3000), 'retry_jitter' => 0]);
$t = hrtime(true);
pcntl_waitpid($pid, $st);
[$rel, $what] = explode(' ', file_get_contents($f));
unlink($f);
unlink("$f.up");
echo "holder $what; acquired: ", $l ? 'yes' : 'no', "; woken, not at the timer: ",
    ($t - $rel) / 1e6 < rl_tls_ms(1000) ? 'yes' : 'no (' . ($t - $rel) / 1e6 . ' ms)', "\n";
var_dump($l->release());
rl_tls_del($res);
?>
--EXPECT--
holder: held
holder released; acquired: yes; woken, not at the timer: yes
bool(true)
