<?php
// Auto-release must run after shutdown functions and destructors:
// lock A is released in a shutdown function, lock B in a destructor; both
// must still be ours there (release() === true). C is left to auto-release.
require __DIR__ . '/_rl.php';
$rl = rl_make();
$res = rl_param('RL_RESOURCE');

final class ReleaseOnDestruct
{
    public function __construct(private RedLock $rl, private RedLock\Lock $lock) {}
    public function __destruct()
    {
        echo "DESTRUCTOR held=", json_encode($this->rl->isLocked($this->lock->resource)),
            " release=", json_encode($this->lock->release()), "\n";
    }
}

$a = $rl->lock("$res:a", 60000);
$b = $rl->lock("$res:b", 60000);
$c = $rl->lock("$res:c", 60000);
echo "TOKENS ", json_encode([$a?->token, $b?->token, $c?->token]), "\n";
register_shutdown_function(function () use ($rl, $a, $c) {
    echo "SHUTDOWN held=", json_encode($rl->isLocked($a->resource)),
        " c_held=", json_encode($rl->isLocked($c->resource)),
        " release=", json_encode($a->release()), "\n";
});
$GLOBALS['keep'] = new ReleaseOnDestruct($rl, $b);
