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
$ttl = (int) rl_slack(300); // the script ends before the validity
$l = $rl->lock($res, $ttl, ['on_lost' => 'throw']);
$l2 = $rl->lock($res . ':cb', $ttl, ['on_lost' => function () { echo "callable called\n"; }]);
register_shutdown_function(function () use ($res, $ttl) {
    $t0 = hrtime(true);
    while (rl_ms($t0) < $ttl + 400) {
    }
    echo "shutdown function done\n";
    rl_del($res, $res . ':cb');
});
echo "end of script\n";
?>
--EXPECT--
end of script
shutdown function done
