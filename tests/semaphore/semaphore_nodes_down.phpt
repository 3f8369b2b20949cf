--TEST--
semaphore: 2 of 5 nodes down, a permit free on the three others is not refused because the start drawn is another holder's slot (an attempt tries the slots that can still win)
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../lock_all/multi.inc';
// limit 2. A takes a permit while nodes 4 and 5 are down: its slot is on
// nodes 1 to 3 only. Nodes 4 and 5 come back (empty), nodes 1 and 2 go down.
// B asks for a permit, one attempt each (retry_count 0): the other slot is
// free on nodes 3, 4, 5. With a start on A's slot node 3 sets the other slot
// and nodes 4, 5 A's: the attempt must then try the other slot.
// (restart_grace 0: nodes 4, 5 vote at once after their restart)
$r = rl_name('semdown');
$opts = ['retry_count' => 0, 'restart_grace' => 0];
try {
    rl_nodes_ctl('kill', 4);
    rl_nodes_ctl('kill', 5);
    $a = rl_new($opts)->semaphore($r, 2, 60000);
    echo "A: ", $a ? 'taken' : 'null', "\n";
    rl_nodes_ctl('restart', 4);
    rl_nodes_ctl('restart', 5);
    rl_nodes_ctl('kill', 1);
    rl_nodes_ctl('kill', 2);
    $rl = rl_new($opts);
    $ok = $null = 0;
    for ($k = 0; $k < 20; $k++) {
        $b = $rl->semaphore($r, 2, 10000);
        if ($b) {
            $ok++;
            $b->release();
        } else {
            $null++;
        }
    }
    echo "B, 20 single attempts: $ok taken, $null null\n";
} finally {
    rl_restore_nodes();
}
?>
--CLEAN--
<?php
require __DIR__ . '/../config.inc';
rl_restore_nodes();
?>
--EXPECT--
A: taken
B, 20 single attempts: 20 taken, 0 null
