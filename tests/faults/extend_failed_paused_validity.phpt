--TEST--
extend() that fails on timeouts (2 of 3 nodes paused) caps the validity: the paused nodes run the PEXPIRE when they wake, so the old lock must not claim its old TTL while another client acquires
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$nodes = array_slice(rl_nodes(), 0, 3);
$opt = ['retry_count' => 0, 'timeout' => 100, 'connect_timeout' => 100];
$rl = new RedLock($nodes, $opt);
$res = rl_name('extend_failed_paused');
$l = $rl->lock($res, 60000);
var_dump($l instanceof RedLock\Lock);
// a first extend loads the script on every node, so the late EVALSHA on the
// paused nodes runs as soon as they wake (no NOSCRIPT round)
var_dump($l->extend(60000));

rl_nodes_ctl('pause', 2);
rl_nodes_ctl('pause', 3);
try {
    $ok = $l->extend(3000);
} finally {
    rl_nodes_ctl('resume', 2);
    rl_nodes_ctl('resume', 3);
}
$t0 = hrtime(true); // the woken nodes run the late PEXPIRE 3000 by now
echo "extend(3000) on 1 of 3: ", var_export($ok, true), "\n";
echo "ttl unchanged: ", $l->ttl, "\n";
$rem = $l->remaining();
echo "remaining <= 3000 after the failed extend: ", $rem <= 3000 ? 'yes' : "no ($rem)", "\n";

// the woken nodes ran the PEXPIRE 3000: every node expires the key about 3 s
// after the extend began (bounded wait for the late commands to land)
for ($i = 0; $i < 50; $i++) {
    $p = rl_pttls($res);
    if (count(array_filter(array_slice($p, 0, 3), fn($v) => $v > 0 && $v <= 3000)) === 3) break;
    usleep(20000);
}
echo "PTTL <= 3000 on the 3 nodes: ", count(array_filter(array_slice($p, 0, 3), fn($v) => $v > 0 && $v <= 3000)), "\n";

$left = 3100 - rl_ms($t0);
if ($left > 0) usleep((int) ($left * 1000));
$other = new RedLock($nodes, ['retry_count' => 5, 'retry_delay' => 50, 'persistent' => false] + $opt);
$l2 = $other->lock($res, 10000);
echo "another client acquires after 3.1 s: ", var_export($l2 instanceof RedLock\Lock, true), "\n";
echo "old lock isValid: ", var_export($l->isValid(), true), ", remaining: ", $l->remaining(), "\n";
$l2?->release();
rl_del($res);
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
bool(true)
bool(true)
extend(3000) on 1 of 3: false
ttl unchanged: 60000
remaining <= 3000 after the failed extend: yes
PTTL <= 3000 on the 3 nodes: 3
another client acquires after 3.1 s: true
old lock isValid: false, remaining: 0
