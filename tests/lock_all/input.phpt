--TEST--
lockAll/restore: bad resources and options are a ValueError or TypeError naming the field
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/multi.inc';
$rl = rl_new(['retry_count' => 0]);
rl_expect('empty', fn() => $rl->lockAll([], 1000), 'ValueError', '$resources', '1 to 64');
rl_expect('65', fn() => $rl->lockAll(array_map(fn($i) => "r$i", range(1, 65)), 1000), 'ValueError', '1 to 64', '65 given');
rl_expect('duplicate', fn() => $rl->lockAll(['x', 'y', 'x'], 1000), 'ValueError', '$resources', '"x" twice');
rl_expect('int', fn() => $rl->lockAll(['x', 5], 1000), 'TypeError', '$resources', 'only strings');
rl_expect('empty string', fn() => $rl->lockAll(['x', ''], 1000), 'ValueError', 'element 1', '512 bytes');
rl_expect('too long', fn() => $rl->lockAll([str_repeat('r', 513)], 1000), 'ValueError', 'element 0');
rl_expect('NUL', fn() => $rl->lockAll(['x', "y\0z"], 1000), 'ValueError', 'element 1', 'NUL');
rl_expect('ttl', fn() => $rl->lockAll(['x'], 0), 'ValueError', '$ttl');
rl_expect('ctor option', fn() => $rl->lockAll(['x'], 1000, ['timeout' => 5]), 'ValueError', 'timeout');
rl_expect('unknown option', fn() => $rl->lockAll(['x'], 1000, ['nope' => 1]), 'ValueError', 'nope');
$tok = str_repeat('t', 20);
rl_expect('restore mode', fn() => $rl->restore('x', $tok, ['mode' => 'permit']), 'ValueError', 'mode');
rl_expect('restore mode type', fn() => $rl->restore('x', $tok, ['mode' => 1]), 'TypeError', 'mode');
rl_expect('restore resources type', fn() => $rl->restore('x', $tok, ['resources' => 'x']), 'TypeError', 'resources');
rl_expect('restore resources dup', fn() => $rl->restore('x', $tok, ['resources' => ['x', 'x']]), 'ValueError', 'resources', 'twice');
rl_expect('restore without resource', fn() => $rl->restore('x', $tok, ['resources' => ['y']]), 'ValueError', 'must include');
rl_expect('restore unknown', fn() => $rl->restore('x', $tok, ['ttl' => 1]), 'ValueError', 'ttl');
$r = $rl->restore('x', $tok, ['mode' => 'exclusive']);
echo "restore exclusive: ", $r->mode, ' ', json_encode($r->resources), "\n";
// keys as big as allowed: 64 resources of 512 bytes
$big = array_map(fn($i) => str_pad(rl_name("big$i"), 512, 'x'), range(1, 64));
$l = $rl->lockAll($big, 5000);
echo "64 x 512 bytes: ", $l ? 'acquired' : 'null', ", held: ", var_export($l?->isHeld(), true), ", release: ",
    var_export($l?->release(), true), "\n";
?>
--EXPECT--
empty: ValueError ok
65: ValueError ok
duplicate: ValueError ok
int: TypeError ok
empty string: ValueError ok
too long: ValueError ok
NUL: ValueError ok
ttl: ValueError ok
ctor option: ValueError ok
unknown option: ValueError ok
restore mode: ValueError ok
restore mode type: TypeError ok
restore resources type: TypeError ok
restore resources dup: ValueError ok
restore without resource: ValueError ok
restore unknown: ValueError ok
restore exclusive: exclusive ["x"]
64 x 512 bytes: acquired, held: true, release: true
