--TEST--
fencing: fences grow across processes; INI redlock.fencing turns it on for new RedLock objects; the empty prefix uses "\0redlock:fence"
--EXTENSIONS--
redlock
--INI--
redlock.fencing=1
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$prefix = rl_name('fencing_proc') . ':';
$res = 'r' . bin2hex(random_bytes(4));
$rl = rl_new(['prefix' => $prefix, 'retry_count' => 0, 'fencing' => true]);
$l = $rl->lock($res, 5000);
$f1 = $l->fence;
$l->release();

// a child process with its own RedLock (and its own connections) locks after us
$child = '$rl = rl_new(["prefix" => ' . var_export($prefix, true) . ', "retry_count" => 0, "fencing" => true]);
$fs = [];
foreach ([1, 2, 3] as $i) { $l = $rl->lock(' . var_export($res, true) . ', 5000); $fs[] = $l->fence; $l->release(); }
echo implode(",", $fs);';
[$rc, $out] = rl_php_child($child);
$cf = array_map('intval', explode(',', $out));
echo "child rc $rc, three fences: ", count($cf), "\n";
echo "child fences above ours and increasing: ", var_export($cf[0] > $f1 && $cf[1] > $cf[0] && $cf[2] > $cf[1], true), "\n";
$l = $rl->lock($res, 5000);
echo "ours after the child is larger: ", var_export($l->fence > $cf[2], true), "\n";
$l->release();

// INI (redlock.fencing=1 from the --INI-- section): read when a RedLock is constructed
echo "INI: ", ini_get('redlock.fencing'), "\n";
$byIni = rl_new(['prefix' => $prefix, 'retry_count' => 0]);
ini_set('redlock.fencing', '0');
$noIni = rl_new(['prefix' => $prefix, 'retry_count' => 0]);
$l = $byIni->lock($res, 5000);
echo "INI on: ", get_debug_type($l->fence), "\n";
$l->release();
$l = $noIni->lock($res, 5000);
echo "INI off: ", get_debug_type($l->fence), "\n";
$l->release();
$l = $noIni->lock($res, 5000, ['fencing' => true]);
echo "INI off, per call on: ", get_debug_type($l->fence), "\n";
$l->release();
$l = $byIni->lock($res, 5000);
echo "the object made while INI was on stays fenced: ", get_debug_type($l->fence), "\n";
$l->release();

// the empty prefix: the counter key is "\0redlock:fence" itself
$bare = rl_new(['retry_count' => 0, 'fencing' => true]);
$l = $bare->lock($prefix . $res, 5000);
$vals = rl_values("\0redlock:fence");
echo "bare counter >= fence on a quorum: ",
    var_export(count(array_filter($vals, fn($v) => is_string($v) && (int) $v >= $l->fence)) >= 3, true), "\n";
echo "bare counter PTTL: ", implode(',', array_unique(rl_pttls("\0redlock:fence"))), "\n";
$l->release();
rl_del($prefix . "\0redlock:fence", $res, $prefix . $res);
?>
--EXPECT--
child rc 0, three fences: 3
child fences above ours and increasing: true
ours after the child is larger: true
INI: 1
INI on: int
INI off: null
INI off, per call on: int
the object made while INI was on stays fenced: int
bare counter >= fence on a quorum: true
bare counter PTTL: -1
