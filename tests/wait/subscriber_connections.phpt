--TEST--
wait: subscriber connections: none left open with persistent => false; kept (unsubscribed) with persistent => true; none without a wait
--EXTENSIONS--
redlock
pcntl
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
function settle(int $want): int
{
    // the server sees a close a moment later: look for up to 3 s (a loaded machine)
    for ($i = 0; $i < 150 && ($n = wait_sub_clients()) !== $want; $i++) usleep(20000);
    return $n;
}
$res = rl_name('subconn');
echo "before: ", wait_sub_clients(), "\n";

// no wait (retry_count) and wake_on_release off: never subscribe
$h = wait_holder($res, 800);   // long enough to outlast the first lock() also under valgrind
$rl = rl_new(['persistent' => false]);
var_dump($rl->lock($res, 1000, ['retry_count' => 1, 'retry_delay' => 10]));
$l = $rl->lock($res, 1000, ['wait' => 2000, 'retry_delay' => 20, 'wake_on_release' => false]);
echo "polling: ", $l ? 'acquired' : 'not acquired', ", subscriber connections: ", wait_sub_clients(), "\n";
$l->release();
wait_holder_done($h);

// persistent => false: closed when the wait is over
$h = wait_holder($res, 200);
$l = $rl->lock($res, 1000, ['wait' => 2000]);
echo "non-persistent: ", $l ? 'acquired' : 'not acquired', ", subscriber connections left: ", settle(0), "\n";
$l->release();
wait_holder_done($h);

// persistent => true: one per node kept for the next wait, no longer subscribed
$h = wait_holder($res, 200);
$p = rl_new(['persistent' => true]);
$l = $p->lock($res, 1000, ['wait' => 2000]);
echo "persistent: ", $l ? 'acquired' : 'not acquired', ", kept: ", settle(5), "\n";
$r = rl_redis(rl_nodes()[0]);
echo "subscribers left on the channel: ", $r->cmd('PUBSUB', 'NUMSUB', "redlock:released:$res")[1], "\n";
$r->close();
$l->release();
wait_holder_done($h);
rl_del($res);
?>
--EXPECT--
before: 0
NULL
polling: acquired, subscriber connections: 0
non-persistent: acquired, subscriber connections left: 0
persistent: acquired, kept: 5
subscribers left on the channel: 0
