--TEST--
semaphore: a fenced permit trims what it does not keep (the fence phases' answers are not the attempt's), and nothing of it is left after release()
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../lock_all/multi.inc';
// limit 3: node 1 has slots 0 and 1 held by another owner, node 2 slot 2.
// Whatever the start, one node answers another slot than the four others,
// which win: that node's slot must be trimmed.
$keysOf = fn(string $r) => array_map(fn($i) => "$r\0p$i", range(0, 2));
$mine = function (string $r, string $token) use ($keysOf) {
    usleep((int) rl_slack(100000)); // (the trim and the release are not waited for)
    $n = 0;
    foreach (rl_nodes() as $addr) {
        $c = rl_redis($addr);
        foreach ($c->cmd('MGET', ...$keysOf($r)) as $v) $n += $v === $token;
        $c->close();
    }
    return $n;
};
foreach ([false, true] as $fencing) {
    $left = [];
    for ($k = 0; $k < 3; $k++) {
        $r = rl_name('semfence');
        rl_set_on([1], "$r\0p0", 'other');
        rl_set_on([1], "$r\0p1", 'other');
        rl_set_on([2], "$r\0p2", 'other');
        $rl = rl_new(['retry_count' => 0, 'fencing' => $fencing]);
        $p = $rl->semaphore($r, 3, 10000);
        if (!$p) {
            $left[] = 'null';
            continue;
        }
        $held = $mine($r, $p->token);
        $p->release();
        $left[] = "$held held, " . $mine($r, $p->token) . " after release";
        rl_del(...array_merge($keysOf($r), ["$r\0pL"]));
    }
    echo $fencing ? "fenced: " : "unfenced: ", implode('; ', $left), "\n";
}
?>
--EXPECT--
unfenced: 4 held, 0 after release; 4 held, 0 after release; 4 held, 0 after release
fenced: 4 held, 0 after release; 4 held, 0 after release; 4 held, 0 after release
