<?php
declare(strict_types=1);

/**
 * Minimal FastCGI client (responder role, one request per connection).
 *
 * Enough for the php-fpm tests: send params + empty stdin, collect
 * FCGI_STDOUT / FCGI_STDERR until FCGI_END_REQUEST or EOF. Every wait is
 * bounded. Several requests may be in flight at once: start() them, then
 * finish() each.
 */
final class FastCgiClient
{
    private const VERSION = 1;
    private const BEGIN_REQUEST = 1;
    private const END_REQUEST = 3;
    private const PARAMS = 4;
    private const STDIN = 5;
    private const STDOUT = 6;
    private const STDERR = 7;
    private const RESPONDER = 1;

    public function __construct(private string $host, private int $port) {}

    /**
     * Start a request for $script (absolute path) with extra FastCGI params.
     * @return resource the connection, to pass to finish()
     */
    public function start(string $script, array $params = [], float $connectTimeout = 2.0)
    {
        $errno = 0;
        $errstr = '';
        $sock = @stream_socket_client("tcp://{$this->host}:{$this->port}", $errno, $errstr, $connectTimeout);
        if ($sock === false) {
            throw new RuntimeException("FastCGI connect {$this->host}:{$this->port}: $errstr ($errno)");
        }
        $params += [
            'GATEWAY_INTERFACE' => 'FastCGI/1.0',
            'REQUEST_METHOD'    => 'GET',
            'SCRIPT_FILENAME'   => $script,
            'SCRIPT_NAME'       => '/' . basename($script),
            'REQUEST_URI'       => '/' . basename($script),
            'DOCUMENT_ROOT'     => dirname($script),
            'QUERY_STRING'      => '',
            'SERVER_SOFTWARE'   => 'redlock-fpm-tests',
            'REMOTE_ADDR'       => '127.0.0.1',
            'REMOTE_PORT'       => '9999',
            'SERVER_ADDR'       => '127.0.0.1',
            'SERVER_PORT'       => '80',
            'SERVER_NAME'       => 'localhost',
            'SERVER_PROTOCOL'   => 'HTTP/1.1',
            'CONTENT_TYPE'      => '',
            'CONTENT_LENGTH'    => '0',
        ];
        $id = 1;
        $buf = self::record(self::BEGIN_REQUEST, $id, pack('nCx5', self::RESPONDER, 0));
        $p = '';
        foreach ($params as $k => $v) {
            $p .= self::nvLen(strlen((string)$k)) . self::nvLen(strlen((string)$v)) . $k . $v;
        }
        foreach (str_split($p, 65535) as $chunk) {
            if ($chunk !== '') {
                $buf .= self::record(self::PARAMS, $id, $chunk);
            }
        }
        $buf .= self::record(self::PARAMS, $id, '');
        $buf .= self::record(self::STDIN, $id, '');
        $off = 0;
        $deadline = microtime(true) + 5.0;
        while ($off < strlen($buf)) {
            if (microtime(true) > $deadline) {
                fclose($sock);
                throw new RuntimeException('FastCGI write timed out');
            }
            $n = @fwrite($sock, substr($buf, $off));
            if ($n === false) {
                fclose($sock);
                throw new RuntimeException('FastCGI write failed');
            }
            $off += $n;
        }
        return $sock;
    }

    /**
     * Read the whole response of a started request.
     * @return array{ended:bool, timed_out:bool, app_status:?int, status:int,
     *               headers:array, body:string, stderr:string, seconds:float}
     */
    public function finish($sock, float $timeout = 10.0): array
    {
        $t0 = microtime(true);
        $deadline = $t0 + $timeout;
        stream_set_blocking($sock, false);
        $in = '';
        $stdout = '';
        $stderr = '';
        $ended = false;
        $appStatus = null;
        $timedOut = false;
        $eof = false;
        while (!$ended) {
            // Parse complete records already buffered.
            while (strlen($in) >= 8) {
                $h = unpack('Cversion/Ctype/nid/nlen/Cpad', $in);
                $total = 8 + $h['len'] + $h['pad'];
                if (strlen($in) < $total) {
                    break;
                }
                $content = substr($in, 8, $h['len']);
                $in = substr($in, $total);
                if ($h['type'] === self::STDOUT) {
                    $stdout .= $content;
                } elseif ($h['type'] === self::STDERR) {
                    $stderr .= $content;
                } elseif ($h['type'] === self::END_REQUEST) {
                    $appStatus = unpack('N', substr($content, 0, 4))[1];
                    $ended = true;
                    break;
                }
            }
            if ($ended || $eof) {
                break;
            }
            $left = $deadline - microtime(true);
            if ($left <= 0) {
                $timedOut = true;
                break;
            }
            $r = [$sock];
            $w = $e = null;
            $sec = (int)$left;
            $usec = (int)(($left - $sec) * 1e6);
            $n = @stream_select($r, $w, $e, $sec, $usec);
            if ($n === false) {
                break;
            }
            if ($n === 0) {
                continue;
            }
            $chunk = @fread($sock, 65536);
            if ($chunk === false || ($chunk === '' && feof($sock))) {
                $eof = true;
                continue;
            }
            $in .= $chunk;
        }
        fclose($sock);

        // Split CGI headers from body.
        $headers = [];
        $body = $stdout;
        $status = $ended ? 200 : 0;
        $sep = strpos($stdout, "\r\n\r\n");
        $sepLen = 4;
        if ($sep === false) {
            $sep = strpos($stdout, "\n\n");
            $sepLen = 2;
        }
        if ($sep !== false) {
            foreach (preg_split('/\r?\n/', substr($stdout, 0, $sep)) as $line) {
                if (strpos($line, ':') !== false) {
                    [$k, $v] = explode(':', $line, 2);
                    $headers[strtolower(trim($k))] = trim($v);
                }
            }
            $body = substr($stdout, $sep + $sepLen);
            if (isset($headers['status'])) {
                $status = (int)$headers['status'];
            }
        }
        return [
            'ended' => $ended,
            'timed_out' => $timedOut,
            'app_status' => $appStatus,
            'status' => $status,
            'headers' => $headers,
            'body' => $body,
            'stderr' => $stderr,
            'seconds' => microtime(true) - $t0,
        ];
    }

    /** start() + finish() */
    public function request(string $script, array $params = [], float $timeout = 10.0): array
    {
        return $this->finish($this->start($script, $params), $timeout);
    }

    private static function record(int $type, int $id, string $content): string
    {
        $len = strlen($content);
        $pad = (8 - ($len % 8)) % 8;
        return pack('CCnnCx', self::VERSION, $type, $id, $len, $pad) . $content . str_repeat("\0", $pad);
    }

    private static function nvLen(int $n): string
    {
        return $n < 128 ? chr($n) : pack('N', $n | 0x80000000);
    }
}
