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
// The meaning, not one PHP version's wording (8.2: "Cannot modify readonly
// property", 8.4: "Cannot indirectly modify readonly property" for a
// reference): each attempt throws an \Error naming the property, and the
// property keeps its value.
function refused(string $what, callable $try, ?RedLock\Lock $l = null, ?string $p = null, string $kind = 'readonly'): void
{
    $before = $l !== null ? $l->$p : null;
    try {
        $try();
        echo "$what: allowed\n";
    } catch (Error $e) {
        $named = preg_match('/\b' . $kind . ' property ' . preg_quote($l !== null ? get_class($l) . '::$' . $p : $p, '/') . '$/', $e->getMessage());
        echo "$what: ", get_class($e), $named ? " naming the property" : " (message: " . $e->getMessage() . ")";
    }
    if ($l !== null) echo ", value ", $l->$p === $before ? "kept" : "changed";
    echo "\n";
}
foreach (['resource', 'token', 'ttl', 'fence'] as $p) {
    refused("assign $p", function () use ($l, $p) { $l->$p = $p === 'ttl' || $p === 'fence' ? 1 : 'x'; }, $l, $p);
}
refused("unset token", function () use ($l) { unset($l->token); }, $l, 'token');
refused("reference to token", function () use ($l) { $ref = &$l->token; $ref = 'x'; }, $l, 'token');
refused("dynamic property on Lock", function () use ($l) { $l->extra = 1; }, null, 'RedLock\Lock::$extra', 'dynamic');
refused("dynamic property on RedLock", function () use ($rl) { $rl->extra = 1; }, null, 'RedLock::$extra', 'dynamic');
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
assign resource: Error naming the property, value kept
assign token: Error naming the property, value kept
assign ttl: Error naming the property, value kept
assign fence: Error naming the property, value kept
unset token: Error naming the property, value kept
reference to token: Error naming the property, value kept
dynamic property on Lock: Error naming the property
dynamic property on RedLock: Error naming the property
resource: string readonly public
token: string readonly public
ttl: int readonly public
fence: ?int readonly public
resources: array readonly public
mode: string readonly public
token intact on: 5
bool(true)
