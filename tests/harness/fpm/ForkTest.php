<?php
declare(strict_types=1);

/**
 * pcntl_fork() safety (CLI): the child opens its own connections, never
 * touches the parent's, cannot release the parent's lock and does not
 * auto-release it on exit; the parent's connections still work afterwards.
 */
final class ForkTest extends RedLockTestCase
{
    public function testForkedChildUsesItsOwnConnections(): void
    {
        $load = $this->requireExtension();
        $prefix = $this->res('fork');
        $cmd = [PHP_BINARY, '-n', ...$load, ...[__DIR__ . '/cli/fork.php', $this->nodesParam(), $prefix]];
        $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        $this->assertIsResource($p);
        [$stdout, $stderr, $code] = self::collect($p, $pipes, 30.0);
        $this->assertSame(0, $code, "fork.php exit code; stderr: $stderr; stdout: $stdout");
        $o = $this->result($stdout);
        $n = count(TestNodes::$nodes);
        $nodes = TestNodes::$nodes;

        $this->assertFalse(isset($o['child_exception']), $o['child_exception'] ?? '');
        $this->assertSame(0, $o['child_exit']);
        // Parent had one connection per node before the fork.
        foreach ($nodes as $node) {
            $this->assertCount(1, $o['parent_conns_before'][$node], "parent: one connection to $node");
        }
        // Child worked on its own connections.
        $this->assertTrue($o['child_locked_b'], 'child locks b through the inherited object');
        $this->assertSame(array_fill(0, $n, $o['child_b_token']), $o['child_b_on_nodes']);
        $this->assertTrue($o['child_released_b'], 'child releases b');
        $this->assertFalse($o['child_release_parent_a'], "release() of the parent's lock in the child returns false");
        $this->assertTrue($o['child_locked_d']);
        foreach ($nodes as $node) {
            $this->assertNotEmpty($o['child_conns_own'][$node], "child opened its own connection to $node");
        }
        // Parent's lock survived the child's exit; the child's own lock did not.
        $this->assertSame(array_fill(0, $n, $o['token_a']), $o['a_on_nodes_after_child'],
            "the child's exit did not release the parent's lock");
        $this->assertSame(array_fill(0, $n, null), $o['d_on_nodes_after_child'],
            "the child's own lock was auto-released at its exit");
        // Parent's sockets untouched: same ports, still listed, same client id and last command.
        $this->assertSame($o['parent_conns_before'], $o['parent_conns_after_child'], 'parent sockets still open');
        $this->assertSame($o['parent_cmds_before'], $o['parent_cmds_after_child'],
            "the child sent nothing on (and did not QUIT) the parent's connections");
        // And they still work.
        $this->assertTrue($o['a_isValid']);
        $this->assertTrue($o['parent_locked_c']);
        $this->assertTrue($o['parent_released_c']);
        $this->assertTrue($o['parent_released_a']);
        $this->assertSame($o['parent_conns_before'], $o['parent_conns_end'], 'parent kept using its original connections');
        foreach (['a', 'b', 'c', 'd'] as $x) {
            $this->assertReleasedEverywhere("$prefix:$x", "lock $x at the end", 0.2);
        }
    }
}
