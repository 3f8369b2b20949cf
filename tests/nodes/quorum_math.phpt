--TEST--
quorum() is floor(N/2)+1; construction does not need reachable nodes
--EXTENSIONS--
redlock
--SKIPIF--
<?php if (!extension_loaded('redlock')) die('skip redlock not loaded'); ?>
--FILE--
<?php
for ($n = 1; $n <= 7; $n++) {
    $nodes = [];
    for ($i = 1; $i <= $n; $i++) {
        $nodes[] = "127.0.0.1:$i";   // nothing listens there
    }
    $rl = new RedLock($nodes);
    echo "$n nodes: quorum ", $rl->quorum(), ", nodes() ", count($rl->nodes()), "\n";
}
?>
--EXPECT--
1 nodes: quorum 1, nodes() 1
2 nodes: quorum 2, nodes() 2
3 nodes: quorum 2, nodes() 3
4 nodes: quorum 3, nodes() 4
5 nodes: quorum 3, nodes() 5
6 nodes: quorum 4, nodes() 6
7 nodes: quorum 4, nodes() 7
