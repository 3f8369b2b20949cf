--TEST--
on_lost: nothing during request shutdown (shutdown functions, end-of-request destructors), nothing outside the request
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('lost-shutdown');
$l = $rl->lock($res, 200, ['on_lost' => 'throw']);
$l2 = $rl->lock($res . ':cb', 200, ['on_lost' => function () { echo "callable called\n"; }]);
register_shutdown_function(function () use ($res) {
    $t0 = hrtime(true);
    while (rl_ms($t0) < 600) {
    }
    echo "shutdown function done\n";
    rl_del($res, $res . ':cb');
});
echo "end of script\n";
?>
--EXPECT--
end of script
shutdown function done
