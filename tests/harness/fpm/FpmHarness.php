<?php
declare(strict_types=1);

/**
 * Runs Debian's php-fpm8.2 in the foreground as a child of the test process:
 * one static pool on 127.0.0.1:<free port>, N workers, the extension under
 * test loaded with -d extension=<REDLOCK_SO>, no system php.ini (-n).
 * Everything is bounded; stop() terminates the master by pid (then its
 * workers by pid if anything is left).
 */
final class FpmHarness
{
    public const BIN = '/usr/sbin/php-fpm8.2';

    /** @var resource|null */
    private $proc = null;
    public int $pid = 0;
    public int $port = 0;
    /** @var array<string,int> with 'pools': each pool's port */
    public array $ports = [];
    public string $dir;
    public string $logFile;
    public string $phpErrorLog;
    /** @var list<int> */
    private array $seenWorkers = [];

    /**
     * @param array{workers?:int, extension?:?string, request_terminate_timeout?:int,
     *              ini?:array<string,string>, pool?:array<string,string>,
     *              pools?:array<string,array{user:string, workers:int}>} $opts
     * 'pools': instead of the one pool "redlock", these pools of one master, each on its
     * own port (client($name)), each running as its user (the master must run as root).
     */
    public function __construct(private array $opts = [])
    {
        $this->dir = sys_get_temp_dir() . '/redlock-fpm-' . getmypid() . '-' . bin2hex(random_bytes(4));
        mkdir($this->dir, 0700, true);
        $this->logFile = $this->dir . '/fpm.log';
        $this->phpErrorLog = $this->dir . '/php-errors.log';
    }

    public static function freePort(): int
    {
        $s = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
        if ($s === false) {
            throw new RuntimeException("free port: $errstr");
        }
        $name = stream_socket_get_name($s, false);
        fclose($s);
        return (int)substr($name, strrpos($name, ':') + 1);
    }

    public static function handler(string $name): string
    {
        return __DIR__ . '/handlers/' . $name . '.php';
    }

    public function workers(): int
    {
        if (isset($this->opts['pools'])) {
            return array_sum(array_column($this->opts['pools'], 'workers'));
        }
        return $this->opts['workers'] ?? 2;
    }

    public function start(): void
    {
        $lastErr = '';
        for ($attempt = 0; $attempt < 3; $attempt++) {
            $this->port = self::freePort();
            $this->ports = [];
            foreach (array_keys($this->opts['pools'] ?? []) as $name) {
                $this->ports[$name] = self::freePort();
            }
            try {
                $this->startOnce();
                return;
            } catch (RuntimeException $e) {
                $lastErr = $e->getMessage();
                $this->stop();
            }
        }
        throw new RuntimeException("php-fpm did not start: $lastErr");
    }

    private function startOnce(): void
    {
        $w = $this->workers();
        $conf = "[global]\n"
            . "pid = {$this->dir}/fpm.pid\n"
            . "error_log = {$this->logFile}\n"
            . "log_level = notice\n"
            . "daemonize = no\n"
            . "process_control_timeout = 2s\n";
        $pools = $this->opts['pools'] ?? ['redlock' => ['workers' => $w]];
        foreach ($pools as $name => $pool) {
            $log = $this->phpErrorLog;
            $conf .= "[$name]\n";
            if (isset($pool['user'])) {
                // the pool's PHP errors go to a file its user can write (the dir stays 0700 but traversable)
                chmod($this->dir, 0711);
                $log = "{$this->dir}/php-errors-$name.log";
                touch($log);
                chown($log, $pool['user']);
                $conf .= "user = {$pool['user']}\n";
            }
            $port = $this->ports[$name] ?? $this->port;
            $conf .= "listen = 127.0.0.1:$port\n"
                . "listen.allowed_clients = 127.0.0.1\n"
                . "pm = static\n"
                . "pm.max_children = {$pool['workers']}\n"
                . "catch_workers_output = yes\n"
                . "decorate_workers_output = no\n"
                . "clear_env = no\n"
                . "php_admin_value[error_log] = $log\n"
                . "php_admin_flag[log_errors] = on\n"
                . "php_value[display_errors] = off\n";
        }
        if (!empty($this->opts['request_terminate_timeout'])) {
            $conf .= "request_terminate_timeout = {$this->opts['request_terminate_timeout']}s\n";
        }
        foreach ($this->opts['pool'] ?? [] as $k => $v) {
            $conf .= "$k = $v\n";
        }
        file_put_contents($this->dir . '/fpm.conf', $conf);

        $cmd = [self::BIN, '-F', '-R', '-n', '-y', $this->dir . '/fpm.conf'];
        // The code under test: 'extension' => null runs a plain php-fpm.
        if (!array_key_exists('extension', $this->opts) || $this->opts['extension'] !== null) {
            array_push($cmd, ...RedLockTestCase::phpLoadArgs());
        }
        foreach ($this->opts['ini'] ?? [] as $k => $v) {
            $cmd[] = '-d';
            $cmd[] = "$k=$v";
        }
        $out = $this->dir . '/fpm.stdout';
        $this->proc = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $out, 'a'], 2 => ['file', $out, 'a']], $pipes);
        if (!is_resource($this->proc)) {
            throw new RuntimeException('proc_open php-fpm failed');
        }
        $this->pid = proc_get_status($this->proc)['pid'];

        // Ready when every port accepts and all workers exist (bounded).
        $deadline = microtime(true) + 10;
        while (true) {
            $st = proc_get_status($this->proc);
            if (!$st['running']) {
                throw new RuntimeException('php-fpm exited: ' . $this->logs());
            }
            $accepting = 0;
            foreach ($this->ports ?: [$this->port] as $port) {
                $s = @stream_socket_client("tcp://127.0.0.1:$port", $e1, $e2, 0.2);
                if ($s !== false) {
                    fclose($s);
                    $accepting++;
                }
            }
            if ($accepting === count($this->ports ?: [$this->port]) && count($this->workerPids()) >= $w) {
                break;
            }
            if (microtime(true) > $deadline) {
                throw new RuntimeException('php-fpm not ready in 10s: ' . $this->logs());
            }
            usleep(20000);
        }
        $this->seenWorkers = $this->workerPids();
    }

    public function logs(): string
    {
        $s = '';
        foreach ([$this->logFile, $this->dir . '/fpm.stdout', $this->phpErrorLog, ...glob($this->dir . '/php-errors-*.log')] as $f) {
            if (is_file($f)) {
                $s .= "--- " . basename($f) . " ---\n" . file_get_contents($f);
            }
        }
        return $s;
    }

    /** Direct children of the master (its workers). */
    public function workerPids(): array
    {
        if (!$this->pid) {
            return [];
        }
        $pids = [];
        $children = @file_get_contents("/proc/{$this->pid}/task/{$this->pid}/children");
        if ($children !== false) {
            foreach (preg_split('/\s+/', trim($children)) as $p) {
                if ($p !== '') {
                    $pids[] = (int)$p;
                }
            }
            sort($pids);
            return $pids;
        }
        foreach (glob('/proc/[0-9]*/stat') as $f) {
            $st = @file_get_contents($f);
            if ($st !== false && preg_match('/^\d+ \(.*\) \S (\d+)/s', $st, $m) && (int)$m[1] === $this->pid) {
                $pids[] = (int)basename(dirname($f));
            }
        }
        sort($pids);
        return $pids;
    }

    /** Every worker pid seen so far (killed workers included). */
    public function allWorkerPidsSeen(): array
    {
        $this->seenWorkers = array_values(array_unique(array_merge($this->seenWorkers, $this->workerPids())));
        return $this->seenWorkers;
    }

    /** A client of the pool (with 'pools': of the pool $pool). */
    public function client(?string $pool = null): FastCgiClient
    {
        return new FastCgiClient('127.0.0.1', $pool === null ? $this->port : $this->ports[$pool]);
    }

    /** The workers of pool $name (their title is "php-fpm: pool $name"). */
    public function poolWorkerPids(string $name): array
    {
        return array_values(array_filter($this->workerPids(),
            fn(int $p) => trim(str_replace("\0", ' ', (string)@file_get_contents("/proc/$p/cmdline"))) === "php-fpm: pool $name"));
    }

    /** Run handler tests/harness/fpm/handlers/$name.php with params; returns FastCgiClient::finish() result. */
    public function request(string $name, array $params = [], float $timeout = 10.0): array
    {
        return $this->client()->request(self::handler($name), $params, $timeout);
    }

    public function stop(): void
    {
        if ($this->proc) {
            $workers = $this->allWorkerPidsSeen();
            self::terminate($this->proc, $this->pid, 5.0);
            foreach ($workers as $w) {
                if (self::alive($w) && self::ppid($w) === $this->pid) {
                    posix_kill($w, SIGKILL);
                }
            }
            // the metrics tables its workers made (a later master would remove them as stale)
            foreach (glob('/dev/shm/redlock-metrics.*/' . $this->pid . '-*') ?: [] as $f) {
                @unlink($f);
            }
            $this->proc = null;
        }
        if (!getenv('REDLOCK_FPM_KEEP')) {
            self::rmTree($this->dir);
        }
    }

    /** Remove a temp dir this harness created (REDLOCK_FPM_KEEP=1 keeps them for debugging). */
    public static function rmTree(string $dir): void
    {
        if (!is_dir($dir) || !str_starts_with($dir, sys_get_temp_dir() . '/redlock-fpm')) {
            return;
        }
        foreach (scandir($dir) as $f) {
            if ($f === '.' || $f === '..') {
                continue;
            }
            $p = "$dir/$f";
            is_dir($p) && !is_link($p) ? self::rmTree($p) : @unlink($p);
        }
        @rmdir($dir);
    }

    public function __destruct()
    {
        $this->stop();
    }

    public static function alive(int $pid): bool
    {
        if (!is_dir("/proc/$pid")) {
            return false;
        }
        $st = @file_get_contents("/proc/$pid/stat");
        return $st !== false && !preg_match('/^\d+ \(.*\) Z/s', $st);
    }

    public static function ppid(int $pid): int
    {
        $st = @file_get_contents("/proc/$pid/stat");
        return ($st !== false && preg_match('/^\d+ \(.*\) \S (\d+)/s', $st, $m)) ? (int)$m[1] : 0;
    }

    /** SIGTERM, bounded wait, SIGKILL, reap. */
    public static function terminate($proc, int $pid, float $timeout): void
    {
        if (!is_resource($proc)) {
            return;
        }
        $st = proc_get_status($proc);
        if ($st['running']) {
            posix_kill($pid, SIGTERM);
            $deadline = microtime(true) + $timeout;
            while (($st = proc_get_status($proc))['running'] && microtime(true) < $deadline) {
                usleep(20000);
            }
            if ($st['running']) {
                posix_kill($pid, SIGKILL);
                $deadline = microtime(true) + 2;
                while (proc_get_status($proc)['running'] && microtime(true) < $deadline) {
                    usleep(20000);
                }
            }
        }
        proc_close($proc);
    }

    /**
     * Local ports of the ESTABLISHED TCP connections process $pid has to
     * 127.0.0.1:$remotePort, read from /proc (socket inodes in /proc/pid/fd
     * matched against /proc/net/tcp).
     */
    public static function socketPorts(int $pid, int $remotePort): array
    {
        $inodes = [];
        foreach (@scandir("/proc/$pid/fd") ?: [] as $fd) {
            $l = @readlink("/proc/$pid/fd/$fd");
            if ($l !== false && preg_match('/^socket:\[(\d+)\]$/', $l, $m)) {
                $inodes[$m[1]] = true;
            }
        }
        $ports = [];
        $lines = @file('/proc/net/tcp') ?: [];
        foreach ($lines as $i => $line) {
            if ($i === 0) {
                continue;
            }
            $f = preg_split('/\s+/', trim($line));
            if (count($f) < 10) {
                continue;
            }
            [, $lport] = explode(':', $f[1]);
            [, $rport] = explode(':', $f[2]);
            if (hexdec($rport) === $remotePort && $f[3] === '01' && isset($inodes[$f[9]])) {
                $ports[] = (int)hexdec($lport);
            }
        }
        sort($ports);
        return $ports;
    }

    /**
     * For one node: pid => number of connections from that pid that the
     * node lists in CLIENT LIST (both ends agree the connection is open).
     */
    public static function connectionsOnNode(string $addr, array $pids): array
    {
        [, $port] = explode(':', $addr);
        $probe = RedisProbe::fromAddr($addr);
        $listed = array_flip($probe->clientPorts());
        $probe->close();
        $out = [];
        foreach ($pids as $pid) {
            $n = 0;
            foreach (self::socketPorts($pid, (int)$port) as $lp) {
                if (isset($listed[$lp])) {
                    $n++;
                }
            }
            $out[$pid] = $n;
        }
        return $out;
    }
}
