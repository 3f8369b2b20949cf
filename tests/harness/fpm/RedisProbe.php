<?php
declare(strict_types=1);

/**
 * Tiny RESP2 client used by the tests to read real state back from the
 * nodes (keys, PTTL, CLIENT LIST). Independent of the extension under test
 * and of phpredis. Every read is bounded by a timeout.
 */
final class RedisProbe
{
    /** @var resource|null */
    private $sock = null;
    private string $buf = '';

    /** @param array $ssl PHP ssl context options: a TLS node (tests/nodes.sh start-tls) */
    public function __construct(public readonly string $host, public readonly int $port, private float $timeout = 2.0,
                                private array $ssl = []) {}

    public static function fromAddr(string $addr): self
    {
        [$h, $p] = explode(':', $addr, 2);
        return new self($h, (int)$p);
    }

    public function close(): void
    {
        if ($this->sock) {
            @fclose($this->sock);
        }
        $this->sock = null;
        $this->buf = '';
    }

    private function connect(): void
    {
        if ($this->sock) {
            return;
        }
        $errno = 0;
        $errstr = '';
        $s = @stream_socket_client(($this->ssl ? 'tls' : 'tcp') . "://{$this->host}:{$this->port}", $errno, $errstr,
            $this->timeout, STREAM_CLIENT_CONNECT, stream_context_create($this->ssl ? ['ssl' => $this->ssl] : []));
        if ($s === false) {
            throw new RuntimeException("probe connect {$this->host}:{$this->port}: $errstr");
        }
        stream_set_timeout($s, (int)$this->timeout, (int)(fmod($this->timeout, 1) * 1e6));
        $this->sock = $s;
        $this->buf = '';
        $this->cmd('CLIENT', 'SETNAME', 'redlock-fpm-probe');
    }

    public function ping(): bool
    {
        try {
            return $this->cmd('PING') === 'PONG';
        } catch (Throwable $e) {
            $this->close();
            return false;
        }
    }

    /** Send one command, return the decoded reply (errors throw). */
    public function cmd(string ...$args): mixed
    {
        $this->connect();
        $out = '*' . count($args) . "\r\n";
        foreach ($args as $a) {
            $out .= '$' . strlen($a) . "\r\n" . $a . "\r\n";
        }
        try {
            if (@fwrite($this->sock, $out) !== strlen($out)) {
                throw new RuntimeException('probe write failed');
            }
            return $this->readReply();
        } catch (RuntimeException $e) {
            if (!str_starts_with($e->getMessage(), 'ERR') && !str_starts_with($e->getMessage(), 'redis:')) {
                $this->close();
            }
            throw $e;
        }
    }

    private function line(): string
    {
        $deadline = microtime(true) + $this->timeout;
        while (($p = strpos($this->buf, "\r\n")) === false) {
            $this->fill($deadline);
        }
        $l = substr($this->buf, 0, $p);
        $this->buf = substr($this->buf, $p + 2);
        return $l;
    }

    private function bytes(int $n): string
    {
        $deadline = microtime(true) + $this->timeout;
        while (strlen($this->buf) < $n + 2) {
            $this->fill($deadline);
        }
        $s = substr($this->buf, 0, $n);
        $this->buf = substr($this->buf, $n + 2);
        return $s;
    }

    private function fill(float $deadline): void
    {
        if (microtime(true) > $deadline) {
            throw new RuntimeException('probe read timed out');
        }
        $c = fread($this->sock, 65536);
        if ($c === false || $c === '') {
            $meta = stream_get_meta_data($this->sock);
            if ($meta['timed_out'] || feof($this->sock)) {
                throw new RuntimeException('probe read failed (eof/timeout)');
            }
        }
        $this->buf .= (string)$c;
    }

    private function readReply(): mixed
    {
        $l = $this->line();
        $t = $l[0];
        $r = substr($l, 1);
        switch ($t) {
            case '+':
                return $r;
            case '-':
                throw new RuntimeException('redis: ' . $r);
            case ':':
                return (int)$r;
            case '$':
                return ((int)$r < 0) ? null : $this->bytes((int)$r);
            case '*':
                if ((int)$r < 0) {
                    return null;
                }
                $a = [];
                for ($i = 0; $i < (int)$r; $i++) {
                    $a[] = $this->readReply();
                }
                return $a;
        }
        throw new RuntimeException("probe: bad reply type '$t'");
    }

    public function get(string $key): ?string
    {
        return $this->cmd('GET', $key);
    }

    public function pttl(string $key): int
    {
        return $this->cmd('PTTL', $key);
    }

    public function del(string $key): int
    {
        return $this->cmd('DEL', $key);
    }

    /** @return list<array<string,string>> CLIENT LIST entries, the probe's own excluded */
    public function clientList(): array
    {
        $raw = $this->cmd('CLIENT', 'LIST');
        $out = [];
        foreach (explode("\n", trim((string)$raw)) as $line) {
            if ($line === '') {
                continue;
            }
            $e = [];
            foreach (explode(' ', trim($line)) as $kv) {
                $p = strpos($kv, '=');
                if ($p !== false) {
                    $e[substr($kv, 0, $p)] = substr($kv, $p + 1);
                }
            }
            if (($e['name'] ?? '') === 'redlock-fpm-probe') {
                continue;
            }
            $out[] = $e;
        }
        return $out;
    }

    /** Client ports (the peer's local port) currently connected, probe excluded. */
    public function clientPorts(): array
    {
        $ports = [];
        foreach ($this->clientList() as $e) {
            if (isset($e['addr']) && preg_match('/:(\d+)$/', $e['addr'], $m)) {
                $ports[] = (int)$m[1];
            }
        }
        return $ports;
    }
}
