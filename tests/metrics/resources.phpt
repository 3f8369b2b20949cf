--TEST--
RedLock::metrics(): per resource prefix (the resource up to its first ':'): acquisitions, conflicts, releases, hold seconds; labels binary-safe and one-to-one; 64 slots, then resource="other" (also a prefix over 64 bytes)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
require __DIR__ . '/metrics.inc';
$rl = rl_new(['retry_count' => 0]);
$id = bin2hex(random_bytes(4)); // keys of this run (the table is this process')
$cycle = function (string $r, int $holdUs = 0) use ($rl): void {
    $l = $rl->lock($r, 5000);
    if (!$l) {
        echo "could not lock $r\n";
        return;
    }
    usleep($holdUs);
    if (!$l->release()) echo "could not release $r\n";
};
$res = fn (array $m, string $f, string $p) => rlm_counter($m, "redlock_resource_{$f}_total", ['resource' => $p]);

// the prefix rule
foreach (["orders:$id:1", "orders:$id:2", "orders:$id:3:x"] as $r) $cycle($r, 20000);
$cycle("nightly-report-$id");            // no ':' : the whole resource
$cycle(":$id");                          // the empty prefix
$held = $rl->lock("orders:$id:held", 5000);
var_dump($rl->lock("orders:$id:held", 5000));   // a conflict of "orders"
$held->release();
$m = rlm_parse(RedLock::metrics());
echo "problems: ", $m['problems'] ? implode("\n", $m['problems']) : 'none', "\n";
foreach (['orders', "nightly-report-$id", ''] as $p) {
    echo str_replace($id, 'ID', "\"$p\""), ": acquisitions ", $res($m, 'acquisitions', $p), ", conflicts ",
        $res($m, 'conflicts', $p), ", releases ", $res($m, 'releases', $p), ", lost ", $res($m, 'lost', $p), "\n";
}
$hold = rlm_value($m, 'redlock_resource_hold_seconds_total', 'redlock_resource_hold_seconds_total', ['resource' => 'orders']);
$all = rlm_hist_series($m['families'], 'redlock_hold_seconds')['[]']['sum'];
echo "orders held >= 3 x 20 ms, at most all the hold time: ", $hold >= 0.06 && $hold <= $all + 1e-6 ? 'yes' : "no ($hold of $all)", "\n";
// every lock is in one prefix's series: they add up to the totals
$sum = fn (string $f) => array_sum(array_map(fn ($s) => $s[2], $m['families']["redlock_resource_{$f}_total"]['samples']));
echo "prefixes add up: ", $sum('acquisitions') == rlm_counter($m, 'redlock_acquisitions_total', ['mode' => 'exclusive'])
    && $sum('releases') == rlm_counter($m, 'redlock_releases_total') && $sum('conflicts') == rlm_counter($m, 'redlock_conflicts_total') ? 'yes' : 'no', "\n";

// labels: escaped as the format says, binary-safe, one-to-one (each read back to its bytes)
$odd = ["a\"b\\c\nd\te", "\xff", "\xfe", "%FF", "100%", "caf\u{e9}", "\xc3", "x\x7fy"];
foreach ($odd as $p) $cycle("$p:$id");
$text = RedLock::metrics();
$m = rlm_parse($text);
echo "problems: ", $m['problems'] ? implode("\n", $m['problems']) : 'none', "\n";
$back = rlm_prefixes($m, 'redlock_resource_acquisitions_total');
$missing = array_filter($odd, fn ($p) => !in_array($p, $back, true));
echo "each odd prefix read back as itself: ", $missing ? 'no: ' . bin2hex(implode('|', $missing)) : 'yes', "\n";
echo "labels distinct: ", count($back) === count(array_unique($back)) ? 'yes' : 'no', "\n";
preg_match('/^redlock_resource_acquisitions_total\{resource="a[^\n]*$/m', $text, $line);
echo "as written: ", $line[0] ?? 'none', "\n";
echo "UTF-8 kept: ", str_contains($text, "{resource=\"caf\u{e9}\"}") ? 'yes' : 'no', "\n";

// a prefix of 64 bytes has its slot, a longer one goes to "other"
$p64 = str_repeat('p', 56) . substr($id, 0, 8);
$cycle("$p64:1");
$cycle("{$p64}q:1");
$m = rlm_parse(RedLock::metrics());
echo "64 bytes: ", $res($m, 'acquisitions', $p64), ", 65 bytes: in other ", $res($m, 'acquisitions', 'other'), "\n";

// fill the table: 64 slots, then "other"; the prefixes already there keep theirs
$used = (int) rlm_value($m, 'redlock_metrics_resource_slots', 'redlock_metrics_resource_slots');
for ($i = $used; $i < 64 + 5; $i++) $cycle("fill$i-$id:x");
$cycle("orders:$id:again");
$cycle("other:$id");                     // a prefix named "other" shares the bucket's series
$m = rlm_parse(RedLock::metrics());
echo "problems: ", $m['problems'] ? implode("\n", $m['problems']) : 'none', "\n";
echo "slots: ", rlm_value($m, 'redlock_metrics_resource_slots', 'redlock_metrics_resource_slots'), "\n";
echo "series: ", count($m['families']['redlock_resource_acquisitions_total']['samples']), "\n";
echo "other: acquisitions ", $res($m, 'acquisitions', 'other'), ", releases ", $res($m, 'releases', 'other'), "\n";
echo "orders still its own: ", $res($m, 'acquisitions', 'orders'), "\n";
echo "the last fill prefixes in other: ", $res($m, 'acquisitions', "fill68-$id") === 0 ? 'yes' : 'no', "\n";
?>
--EXPECT--
NULL
problems: none
"orders": acquisitions 4, conflicts 1, releases 4, lost 0
"nightly-report-ID": acquisitions 1, conflicts 0, releases 1, lost 0
"": acquisitions 1, conflicts 0, releases 1, lost 0
orders held >= 3 x 20 ms, at most all the hold time: yes
prefixes add up: yes
problems: none
each odd prefix read back as itself: yes
labels distinct: yes
as written: redlock_resource_acquisitions_total{resource="a\"b\\c%0Ad%09e"} 1
UTF-8 kept: yes
64 bytes: 1, 65 bytes: in other 1
problems: none
slots: 64
series: 65
other: acquisitions 7, releases 7
orders still its own: 5
the last fill prefixes in other: yes
