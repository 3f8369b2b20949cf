--TEST--
redlock_arginfo.h was regenerated from the current redlock.stub.php (Stub hash line)
--SKIPIF--
<?php
if (!is_file(__DIR__ . '/../../redlock.stub.php') || !is_file(__DIR__ . '/../../redlock_arginfo.h')) die('skip stub sources not next to the tests');
?>
--FILE--
<?php
/* gen_stub.php's computeStubHash(): sha1 of the stub with CRLF turned into LF. */
$stub = file_get_contents(__DIR__ . '/../../redlock.stub.php');
$arginfo = file_get_contents(__DIR__ . '/../../redlock_arginfo.h');
$want = sha1(str_replace("\r\n", "\n", $stub));
if (!preg_match('/\* Stub hash: ([0-9a-f]+) \*/', $arginfo, $m)) {
    echo "redlock_arginfo.h has no 'Stub hash:' line\n";
} elseif ($m[1] !== $want) {
    echo "redlock_arginfo.h is stale: Stub hash {$m[1]}, sha1(redlock.stub.php) $want\n",
         "regenerate: bash scripts/gen-stub.sh\n";
} else {
    echo "OK\n";
}
?>
--EXPECT--
OK
