--TEST--
RedLock\Lock cannot be created by user code; its properties are readonly; no dynamic properties
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
try {
    $x = new RedLock\Lock();
    echo "constructed\n";
} catch (Error $e) {
    echo "new: ", get_class($e), "\n";
}
try {
    (new ReflectionClass(RedLock\Lock::class))->newInstanceWithoutConstructor();
    echo "constructed without constructor\n";
} catch (Throwable $e) {
    echo "newInstanceWithoutConstructor: ", get_class($e), "\n";
}
var_dump((new ReflectionClass(RedLock\Lock::class))->isFinal(), (new ReflectionClass(RedLock::class))->isFinal());

$rl = rl_new(['retry_count' => 0]);
$res = rl_name('lock_not_constructible');
$l = $rl->lock($res, 5000);
foreach (['resource', 'token', 'ttl', 'fence'] as $p) {
    try {
        $l->$p = $p === 'ttl' || $p === 'fence' ? 1 : 'x';
        echo "modified $p\n";
    } catch (Error $e) {
        echo $e->getMessage(), "\n";
    }
}
try { unset($l->token); } catch (Error $e) { echo $e->getMessage(), "\n"; }
try { $ref = &$l->token; } catch (Error $e) { echo $e->getMessage(), "\n"; }
try { $l->extra = 1; } catch (Error $e) { echo $e->getMessage(), "\n"; }
try { $rl->extra = 1; } catch (Error $e) { echo $e->getMessage(), "\n"; }
foreach ((new ReflectionClass($l))->getProperties() as $p) {
    echo $p->getName(), ": ", $p->getType(), $p->isReadOnly() ? ' readonly' : '', $p->isPublic() ? ' public' : '', "\n";
}
echo "token intact on: ", rl_count_value($res, $l->token), "\n";
var_dump($l->release());
rl_del($res);
?>
--EXPECT--
new: Error
newInstanceWithoutConstructor: ReflectionException
bool(true)
bool(true)
Cannot modify readonly property RedLock\Lock::$resource
Cannot modify readonly property RedLock\Lock::$token
Cannot modify readonly property RedLock\Lock::$ttl
Cannot modify readonly property RedLock\Lock::$fence
Cannot unset readonly property RedLock\Lock::$token
Cannot modify readonly property RedLock\Lock::$token
Cannot create dynamic property RedLock\Lock::$extra
Cannot create dynamic property RedLock::$extra
resource: string readonly public
token: string readonly public
ttl: int readonly public
fence: ?int readonly public
token intact on: 5
bool(true)
