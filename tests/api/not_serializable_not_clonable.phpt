--TEST--
RedLock and RedLock\Lock can be neither serialized, unserialized nor cloned
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('not_serializable');
$l = $rl->lock($res, 5000);
foreach ([$rl, $l] as $o) {
    try { serialize($o); echo "serialized\n"; } catch (Exception $e) { echo $e->getMessage(), "\n"; }
    try { clone $o; echo "cloned\n"; } catch (Error $e) { echo $e->getMessage(), "\n"; }
    var_dump((new ReflectionClass($o))->isCloneable());
}
foreach (['O:7:"RedLock":0:{}', 'O:12:"RedLock\Lock":0:{}'] as $s) {
    try { var_dump(unserialize($s)); } catch (Exception $e) { echo $e->getMessage(), "\n"; }
}
echo "token intact on: ", rl_count_value($res, $l->token), "\n";
var_dump($l->release());
rl_del($res);
?>
--EXPECT--
Serialization of 'RedLock' is not allowed
Trying to clone an uncloneable object of class RedLock
bool(false)
Serialization of 'RedLock\Lock' is not allowed
Trying to clone an uncloneable object of class RedLock\Lock
bool(false)
Unserialization of 'RedLock' is not allowed
Unserialization of 'RedLock\Lock' is not allowed
token intact on: 5
bool(true)
