--TEST--
RedLock::metrics(): promtool check metrics accepts it (Debian's promtool 2.42), with failing nodes, node names to escape, and more nodes than the table's 64 slots ("other"), resource prefixes to escape and beyond their 64 slots
--EXTENSIONS--
redlock
--SKIPIF--
<?php
require __DIR__ . '/../skipif.inc';
// only where promtool is not installed, and never in CI (CI=true): there scripts/deps.sh installs it
if (trim((string)shell_exec('command -v promtool 2>/dev/null')) === '' && !getenv('CI')) {
    die('skip promtool not installed (bash scripts/deps.sh installs Debian\'s prometheus package)');
}
?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
require __DIR__ . '/metrics.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('mprom');
for ($i = 0; $i < 5; $i++) $rl->lock("$res:$i", 5000)?->release();
$held = $rl->lock("$res:held", 5000);
$rl->lock("$res:held", 5000);
$held->extend(5000);
$held->release();

// nodes that cannot be reached (no such socket): errors, quorum failures;
// 2 odd names + 68 more, beyond the table's 64 slots with the 5 above
$odd = ["/nonexistent/a\"b\\c\nd.sock", "/nonexistent/\xff\xfe-not-utf8.sock"];
$socks = $odd;
for ($i = 0; count($socks) < 70; $i++) $socks[] = "/nonexistent/n$i.sock";
$quorum = 0;
foreach (array_chunk($socks, 10) as $chunk) {
    $g = new RedLock(array_map(fn($s) => ['socket' => $s], $chunk), ['retry_count' => 0]);
    try {
        $g->lock($res, 1000);
    } catch (RedLock\QuorumException $e) {
        $quorum++;
    }
}
// resource prefixes to escape (not UTF-8, quotes, newline, '%'), and more than the 64 slots
$pre = ["q\"u\\o\nte%", "\xff\xfe", "\x01ctl", ''];
for ($i = 0; count($pre) < 70; $i++) $pre[] = "mprom$i";
foreach ($pre as $p) $rl->lock("$p:$res", 5000)?->release();
$text = RedLock::metrics();
$m = rlm_parse($text);
echo "problems: ", $m['problems'] ? implode("\n", $m['problems']) : 'none', "\n";
echo "quorum failures: ", rlm_counter($m, 'redlock_quorum_failures_total'), " of $quorum\n";
echo "node slots: ", rlm_value($m, 'redlock_metrics_node_slots', 'redlock_metrics_node_slots'), "\n";
$names = rlm_nodes($m, 'redlock_node_requests_total');
echo "node series: ", count($names), " (64 named and other)\n";
echo "other's errors: ", rlm_counter($m, 'redlock_node_requests_total', ['node' => 'other', 'result' => 'error']) > 0 ? 'yes' : 'no', "\n";
echo "escaped name read back: ", var_export(in_array('unix:' . $odd[0], $names, true), true), "\n";
echo "resource slots: ", rlm_value($m, 'redlock_metrics_resource_slots', 'redlock_metrics_resource_slots'), "\n";
echo "resource series: ", count($m['families']['redlock_resource_releases_total']['samples']), " (64 and other)\n";
$back = rlm_prefixes($m, 'redlock_resource_releases_total');
echo "escaped prefixes read back: ", var_export(!array_diff(array_slice($pre, 0, 4), $back), true), "\n";
echo "not UTF-8: replaced: ", var_export(in_array("unix:/nonexistent/\u{FFFD}\u{FFFD}-not-utf8.sock", $names, true), true), "\n";
$r = rlm_promtool($text);
if ($r === null) {
    echo "promtool is not installed\n";
} else {
    echo "promtool check metrics: exit ", $r[0], $r[0] ? "\n" . $r[1] : '', "\n";
}
?>
--EXPECT--
problems: none
quorum failures: 7 of 7
node slots: 64
node series: 65 (64 named and other)
other's errors: yes
escaped name read back: true
resource slots: 64
resource series: 65 (64 and other)
escaped prefixes read back: true
not UTF-8: replaced: true
promtool check metrics: exit 0
