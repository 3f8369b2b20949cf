--TEST--
Read locks: a reader that dies expires by its own TTL, not the longest one: after a long reader's release the key lives for the short reader's time left, and a waiting exclusive lock() gets in then
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/shared.inc';
$r = rl_name('sh_exp');
$rl = rl_new(['retry_count' => 0, 'auto_release' => false]);
$shortTtl = (int) rl_slack(1000);                      // (scaled: the checks below must come before it ends)
$short = $rl->lock($r, $shortTtl, ['shared' => true]); // never released: it "dies"
$long = $rl->lock($r, 30000, ['shared' => true]);
echo "while the long reader holds, the key lives for it: ", min(rl_pttls($r)) > 20000 ? 'yes' : json_encode(rl_pttls($r)), "\n";
$long->release();
$pt = rl_pttls($r);
echo "after its release, for the short one's time left: ", max($pt) <= $shortTtl && min($pt) > 0 ? 'yes' : json_encode($pt), "\n";
$t0 = hrtime(true);
$x = $rl->lock($r, 1000, ['wait' => (int) rl_slack(20000), 'retry_delay' => 50, 'retry_jitter' => 0]);
$ms = rl_ms($t0);
echo "exclusive after the short reader's expiry: ", $x ? 'yes' : 'no', ", long before the long TTL: ", $ms < $shortTtl + rl_slack(2000) ? 'yes' : "no ($ms ms)", "\n";
$x->release();
sh_del($r);
?>
--EXPECT--
while the long reader holds, the key lives for it: yes
after its release, for the short one's time left: yes
exclusive after the short reader's expiry: yes, long before the long TTL: yes
