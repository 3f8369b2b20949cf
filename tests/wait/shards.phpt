--TEST--
wait: a release tells ONE shard of 1024 (32 groups of 32): the first group with subscribers from the release id's hash, then its first shard; "<that shard's subscribers> <id>", the same shard on every node; a group whose waiters listen on the group alone (a version before the shards) gets the message itself
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/wait.inc';
$res = rl_name('shards');
$chan = "redlock:released:$res";
$g = fn(int $k) => "$chan\0" . chr(48 + $k);            // a group's channel
$sh = fn(int $k, int $s) => $g($k) . chr(48 + $s);     // a shard's
// per node, four raw subscribers: A and B on shard 5/7 (B on 5/9 too), C on 28/3,
// D on group 20 alone; every one on the key's channel (it counts the waiters)
$layout = [
    'A' => [$g(5), $sh(5, 7)],
    'B' => [$g(5), $sh(5, 7), $sh(5, 9)],
    'C' => [$g(28), $sh(28, 3)],
    'D' => [$g(20)],
];
function resp(array $words): string
{
    $o = '*' . count($words) . "\r\n";
    foreach ($words as $w) $o .= '$' . strlen($w) . "\r\n$w\r\n";
    return $o;
}
/** complete pushes at the front of $buf, as [kind, channel, payload] (consumed) */
function pushes(string &$buf): array
{
    $out = [];
    while (preg_match('/\A\*3\r\n\$(\d+)\r\n/', $buf, $m)) {
        $p = strlen($m[0]);
        $parts = [];
        $ok = true;
        for ($i = 0; $i < 3; $i++) {
            if ($i > 0) {
                if ($buf[$p] === ':') { // a count (subscribe confirmations)
                    $e = strpos($buf, "\r\n", $p);
                    if ($e === false) { $ok = false; break; }
                    $parts[] = substr($buf, $p + 1, $e - $p - 1);
                    $p = $e + 2;
                    continue;
                }
                if (!preg_match('/\G\$(\d+)\r\n/', $buf, $mm, 0, $p)) { $ok = false; break; }
                $len = (int) $mm[1];
                $p += strlen($mm[0]);
            } else {
                $len = (int) $m[1];
            }
            if (strlen($buf) < $p + $len + 2) { $ok = false; break; }
            $parts[] = substr($buf, $p, $len);
            $p += $len + 2;
        }
        if (!$ok) break;
        $out[] = $parts;
        $buf = (string) substr($buf, $p);
    }
    return $out;
}
$conns = [];
foreach ([0, 1] as $node) {
    foreach ($layout as $name => $chans) {
        $s = stream_socket_client('tcp://' . rl_nodes()[$node], $errno, $err, 2.0);
        stream_set_blocking($s, false);
        fwrite($s, resp(array_merge(['SUBSCRIBE', $chan], $chans)));
        $conns["$node$name"] = ['s' => $s, 'buf' => '', 'want' => 1 + count($chans), 'subs' => 0, 'msgs' => []];
    }
}
/** read every connection until $done() or the deadline */
function pump(array &$conns, callable $done, float $ms): void
{
    $deadline = microtime(true) + $ms / 1000;
    while (!$done() && microtime(true) < $deadline) {
        $r = array_map(fn($c) => $c['s'], $conns);
        $w = $e = null;
        if (@stream_select($r, $w, $e, 0, 20000) > 0) {
            foreach ($conns as $k => &$c) {
                if (!in_array($c['s'], $r, true)) continue;
                $c['buf'] .= (string) fread($c['s'], 65536);
                foreach (pushes($c['buf']) as [$kind, $ch, $pl]) {
                    if ($kind === 'subscribe') $c['subs']++;
                    elseif ($kind === 'message') $c['msgs'][] = [$ch, $pl];
                }
            }
            unset($c);
        }
    }
}
pump($conns, function () use (&$conns) {
    foreach ($conns as $c) if ($c['subs'] < $c['want']) return false;
    return true;
}, rl_slack(3000));
echo "subscribed: ", array_sum(array_map(fn($c) => $c['subs'], $conns)), "\n";

$rl = rl_new(['retry_count' => 0]);
$n = 60;
$released = 0;
for ($i = 0; $i < $n; $i++) {
    $l = $rl->lock($res, 5000);
    $released += $l && $l->release();
}
echo "released: $released\n";
// every release reaches both nodes' subscribers: the expected connections of the expected shard
$expected = ["$chan\0" . chr(53) . chr(55) => ['A', 'B'], "$chan\0" . chr(53) . chr(57) => ['B'],
    "$chan\0" . chr(76) . chr(51) => ['C'], "$chan\0" . chr(68) => ['D']];
// read until every release reached every connection it should (a slow build's copies come
// late: a fixed wait missed some), then a little longer for anything unexpected
pump($conns, function () use (&$conns, $n, $chan, $expected) {
    $at = [];
    foreach ($conns as $k => $c) foreach ($c['msgs'] as [$ch, $pl]) $at[$pl][$k] = 1;
    if (count($at) < $n) return false;
    foreach ($at as $pl => $ks) {
        [$want] = target(substr($pl, -16), $chan);
        if (count($ks) < 2 * count($expected[$want] ?? [])) return false;
    }
    return true;
}, rl_slack(5000));
pump($conns, fn() => false, rl_slack(200));
/** where the release script must send a release of id $id, and what count */
function target(string $id, string $chan): array
{
    $h = 0;
    for ($i = 0; $i < strlen($id); $i++) $h = ($h * 31 + ord($id[$i])) % 65521;
    $groups = [5 => [7 => 2, 9 => 1], 20 => [], 28 => [3 => 1]];
    $gsubs = [5 => 2, 20 => 1, 28 => 1];
    for ($k = 0; $k < 32; $k++) {
        $j = ($h + $k) % 32;
        if (!isset($groups[$j])) continue;
        $h2 = intdiv($h, 32);
        for ($q = 0; $q < 32; $q++) {
            $jj = ($h2 + $q) % 32;
            if (isset($groups[$j][$jj])) return ["$chan\0" . chr(48 + $j) . chr(48 + $jj), $groups[$j][$jj]];
        }
        return ["$chan\0" . chr(48 + $j), $gsubs[$j]]; // no shard subscribed: the group itself
    }
    return ['', 0];
}
$got = []; // id => [node.conn => channel]
$bad = [];
foreach ($conns as $k => $c) {
    foreach ($c['msgs'] as [$ch, $pl]) {
        if (!preg_match('/^(\d+) ([0-9a-f]{16})$/', $pl, $m)) { $bad[] = "payload $pl"; continue; }
        [$want, $count] = target($m[2], $chan);
        if ($ch !== $want) $bad[] = "release {$m[2]} on " . bin2hex(substr($ch, strlen($chan))) . ", not " . bin2hex(substr($want, strlen($chan)));
        if ((int) $m[1] !== $count) $bad[] = "release {$m[2]}: count {$m[1]}, not $count";
        $got[$m[2]][$k] = $ch;
    }
}
$kinds = ['shard' => 0, 'group' => 0];
foreach ($got as $id => $at) {
    [$want] = target($id, $chan);
    $who = [];
    foreach ([0, 1] as $node) foreach ($expected[$want] ?? [] as $name) $who[] = "$node$name";
    $keys = array_keys($at);
    sort($keys);
    sort($who);
    if ($keys !== $who) $bad[] = "release $id reached " . implode(',', $keys) . ", not " . implode(',', $who);
    $kinds[strlen($want) === strlen($chan) + 3 ? 'shard' : 'group']++;
}
echo "releases told: ", count($got), "\n";
echo "every one to its one shard, on both nodes, with that shard's count: ", $bad ? "no\n  " . implode("\n  ", array_slice($bad, 0, 8)) : 'yes', "\n";
// (of the 32 start positions 15 lead to group 20, 9 to 5, 8 to 28: in 60 releases each path
// is missed with a chance under 1e-7)
echo "shards told: ", $kinds['shard'] > 0 ? 'yes' : 'no', ", a group alone told: ", $kinds['group'] > 0 ? 'yes' : 'no', "\n";
foreach ($conns as $c) fclose($c['s']);
rl_del($res);
?>
--EXPECT--
subscribed: 24
released: 60
releases told: 60
every one to its one shard, on both nodes, with that shard's count: yes
shards told: yes, a group alone told: yes
