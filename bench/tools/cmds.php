<?php
// cmds.php NODES -- Redis commands processed, summed over the nodes (h:p,...), less this
// tool's own INFO calls; and the servers' CPU seconds. Prints "commands cpu_s".
$t = 0;
$cpu = 0.0;
foreach (explode(',', $argv[1] ?? '') as $n) {
    $i = strrpos($n, ':');
    $s = @fsockopen(substr($n, 0, $i), (int)substr($n, $i + 1), $e, $es, 1.0);
    if (!$s) {
        continue;
    }
    fwrite($s, "*1\r\n$4\r\nINFO\r\n");
    $hdr = fgets($s);
    $len = (int)substr($hdr, 1);
    $body = '';
    while (strlen($body) < $len + 2 && !feof($s)) {
        $body .= fread($s, $len + 2 - strlen($body));
    }
    fclose($s);
    if (preg_match('/total_commands_processed:(\d+)/', $body, $m)) {
        $t += (int)$m[1] - 1;
    }
    if (preg_match('/used_cpu_sys:([\d.]+)/', $body, $a) && preg_match('/used_cpu_user:([\d.]+)/', $body, $b)) {
        $cpu += (float)$a[1] + (float)$b[1];
    }
}
printf("%d %.3f\n", $t, $cpu);
