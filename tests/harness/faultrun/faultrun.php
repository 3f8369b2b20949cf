<?php
// faultrun.php -- the PHP side of the randomized fault run (driven by tests/harness/faultrun/run.sh).
//
//   faultrun.php worker ID KIND   one contending process until $FR_END (unix time), KIND:
//       short   lock()s with short TTLs (FR_SHORT_TTL ms range), a new RedLock object for most
//               calls (an FPM request's way), one resource of the round at random
//       solo    like short, and before each lock() one-node RedLock calls (isLocked, or a
//               lock() and release() of a resource of its own) on a random part of the nodes,
//               with the same options: the same pooled connections as the multi-node calls
//       long    takes the holds the injector asks for (a list on AUX): a long TTL, held
//               until shortly before its validity ends, never extended
//     Every hold is a line of ITS log (JSON): when lock() returned and when the hold ended
//     (release() called, or the validity: hrtime when lock() returned + remaining()), both on
//     CLOCK_MONOTONIC (hrtime(true)), which every process of the host shares. Inside it the
//     worker takes a marker on AUX (SET NX: already there = an overlap seen live), reads the
//     resource's counter, works, writes counter+1 while its validity lasts.
//   faultrun.php hold ID PREFIX RES TTL WORK_MS ACK_KEY
//                                 one long hold (a process of its own, started by a long worker)
//   faultrun.php nodes-up         the 5 nodes started again under the clock-shifting library
//   faultrun.php inject           the seeded fault schedule ($FR_SEED) until $FR_END - 3 s,
//                                 then heals every node; its events go to $FR_DIR/events.log
//   faultrun.php check            reads the logs and AUX: overlapping holds, lost updates
//
// Environment (run.sh): FR_NODES (host:port,... of the 5 lock nodes), REDLOCK_TEST_AUX (the AUX
// node), FR_DIR (work dir), FR_NS (the nodes' network namespaces, comma-separated, or empty: no
// partitions), FR_PIDFILES (the nodes' pid files), FR_NODEDIR (their --dir), FR_CLOCKSO
// (tests/restart/clockshift.c built, or empty: no clock steps), FR_SO (the extension), FR_SEED,
// FR_END (unix time), FR_RUN (this run's keys), FR_WORKERS, FR_LONG_TTL and FR_SHORT_TTL ("lo-hi" ms).
declare(strict_types=1);

const TAG = 'faultrun';
const AUX_TIMEOUT = 2.0;
require_once dirname(__DIR__) . '/torture/common.php'; // (read_reports, write_json; tests/config.inc's RlRedis)

const N = 5;
const Q = 3;
const RESOURCES = ['a', 'b'];
/** DEL KEYS[1] where it holds ARGV[1] (1), else 0 */
const DEL_IF = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

function fr_env(string $k): string
{
    $v = getenv($k);
    if ($v === false) {
        fwrite(STDERR, "faultrun: $k not set\n");
        exit(2);
    }
    return $v;
}
function fr_nodes(): array { return explode(',', fr_env('FR_NODES')); }
function fr_now(): int { return hrtime(true); }                   // ns, CLOCK_MONOTONIC
function fr_ms(): float { return hrtime(true) / 1e6; }
function fr_key(string $what): string { return 'fr:' . fr_env('FR_RUN') . ':' . $what; }
/** one command to a node on a connection of its own (throws when unreachable) */
function fr_node_cmd(string $addr, string|int ...$args): mixed
{
    $r = new RlRedis($addr, 0.2);
    try {
        return $r->cmd(...$args);
    } finally {
        $r->close();
    }
}
function fr_range(string $env, string $def): array { return array_map('intval', explode('-', getenv($env) ?: $def)); }
/** The options of every RedLock of the run: restart_grace is left at its default ('auto'). */
function fr_opts(string $prefix): array
{
    return ['prefix' => $prefix, 'connect_timeout' => 50, 'timeout' => 50, 'retry_delay' => 10, 'retry_jitter' => 10];
}

// ---- workers ----------------------------------------------------------------------------
/** One lock() and, when it wins, the hold: its line in the worker's log, its figures in $fig. */
function fr_hold(array &$fig, int $id, RedLock $rl, string $prefix, string $res, int $ttl, int $wait, int $workMs, string $ack = ''): ?string
{
    static $log = null;
    $log ??= fopen(fr_env('FR_DIR') . "/holds-$id.log", 'a');
    $aux = aux();
    $fig['attempts']++;
    $quorum = false;
    try {
        $l = $rl->lock($res, $ttl, ['wait' => $wait]);
    } catch (RedLock\QuorumException $e) {
        $fig['quorum']++;
        $quorum = true;
        $l = null;
    }
    if (!$l) {
        $fig['nulls'] += $quorum ? 0 : 1;
        if ($ack !== '') $aux->cmd('SET', $ack, 'no', 'PX', 60000);
        return null;
    }
    $t1 = fr_now();                                  // (before remaining(): never later than the truth)
    $validEnd = $t1 + $l->remaining() * 1000000;
    if ($ack !== '') $aux->cmd('SET', $ack, 'yes', 'PX', 60000); // (the injector goes on)
    $fig['holds']++;
    $ck = fr_key("c:$prefix$res");
    $mk = fr_key("m:$prefix$res");
    $mine = "$id:" . bin2hex(random_bytes(4));
    if ($aux->cmd('SET', $mk, $mine, 'NX', 'PX', max(1, $l->remaining())) === null) $fig['live_overlaps']++;
    $v = (int) $aux->cmd('GET', $ck);
    // FAULTRUN_DIAG=1: what each node holds for the key right after lock() returned (t: ours,
    // o: another value, -: none, ?: no answer), for the report of an overlap
    $on = getenv('FAULTRUN_DIAG') === '1' ? implode('', array_map(function (string $a) use ($prefix, $res, $l): string {
        try {
            $x = fr_node_cmd($a, 'GET', $prefix . $res);
        } catch (Throwable $e) {
            return '?';
        }
        return $x === null ? '-' : ($x === $l->token ? 't' : 'o');
    }, fr_nodes())) : '';
    // work; a long hold wakes up now and then (a stop of its own process shows in the log)
    $until = fr_ms() + $workMs;
    while (($left = $until - fr_ms()) > 0) usleep((int) (min($left, 200) * 1000));
    $inc = 0;
    if (fr_now() + 20000000 < $validEnd) {
        $aux->cmd('SET', $ck, (string) ($v + 1));
        $inc = 1;
        if (fr_now() > $validEnd) $fig['late_writes']++; // a stall past the validity: may lose an update
        $fig['incs']["$prefix$res"] = ($fig['incs']["$prefix$res"] ?? 0) + 1;
    }
    $aux->cmd('EVAL', DEL_IF, 1, $mk, $mine);
    $tr = fr_now();
    try {
        $l->release();
    } catch (RedLock\Exception $e) {
    }
    fwrite($log, json_encode(['w' => $id, 'k' => $prefix . $res, 'ttl' => $ttl, 't1' => $t1,
        'te' => min($tr, $validEnd), 'valid_end' => $validEnd, 'tok' => $l->token, 'inc' => $inc, 'on' => $on]) . "\n");
    fflush($log);
    return $l->token;
}

function worker(int $id, string $kind): int
{
    mt_srand((int) fr_env('FR_SEED') * 31 + $id);
    $end = (float) fr_env('FR_END');
    $nodes = fr_nodes();
    $aux = aux();
    $fig = ['id' => $id, 'kind' => $kind, 'attempts' => 0, 'holds' => 0, 'nulls' => 0, 'quorum' => 0,
        'solo_calls' => 0, 'live_overlaps' => 0, 'incs' => [], 'late_writes' => 0, 'errors' => []];
    [$lo, $hi] = fr_range('FR_SHORT_TTL', '300-1500');
    // every process learns every node's run_id before the faults begin (a process that
    // never saw a node cannot tell a restart from a new node: docs/api.md "Restarted nodes")
    // (with the run's options: the pooled connections are those of its calls; the nodes have
    // just started and the machine may be busy: until every node answered, for up to 10 s)
    $warm = new RedLock($nodes, fr_opts('fr:warm:'));
    for ($t = 0; $t < 100; $t++) {
        try {
            $warm->isLocked('warm');
        } catch (RedLock\QuorumException $e) {
        }
        $st = $warm->stats()['nodes'];
        if (count(array_filter($nodes, fn($n) => ($st[$n]['ok'] ?? 0) > 0)) === N) break;
        usleep(100000);
    }
    $aux->cmd('INCR', fr_key('ready'));
    $rl = null;
    $rlPrefix = '';
    try {
        while (microtime(true) < $end) {
            [$prefix, $quiet] = $aux->cmd('MGET', fr_key('round'), fr_key('quiet'));
            $prefix = (string) $prefix;
            if ($kind === 'long') {
                $req = $aux->cmd('BLPOP', fr_key('req'), 1);
                if (!is_array($req)) continue;
                [$prefix, $res, $ttl, $workMs, $rid] = explode('|', $req[1]);
                // each hold in a new process (a job started for it): its RedLock judges every
                // node at first sight, as a new process does (docs/api.md "Restarted nodes"); an
                // object of this process would count a node it saw restart only after a call
                // with N - Q + 1 other nodes answering, which a partitioned round never has
                $p = proc_open([PHP_BINARY, '-n', '-d', 'extension=' . fr_env('FR_SO'), '-d', 'extension=posix', __FILE__,
                    'hold', (string) $id, $prefix, $res, $ttl, $workMs, fr_key("ack:$rid")], [1 => ['pipe', 'w']], $pipes);
                $got = json_decode((string) stream_get_contents($pipes[1]), true);
                fclose($pipes[1]);
                proc_close($p);
                if (!is_array($got)) throw new RuntimeException("the hold process of request $rid left no figures");
                foreach ($got as $k => $v) {
                    if (is_int($v)) $fig[$k] += $v;
                }
                foreach ($got['incs'] as $k => $n) $fig['incs'][$k] = ($fig['incs'][$k] ?? 0) + $n;
                array_push($fig['errors'], ...$got['errors']);
                continue;
            }
            if ($kind === 'solo') {
                foreach ($nodes as $i => $node) {
                    if (mt_rand(1, 100) > 60) continue;
                    $one = new RedLock([$node], fr_opts($prefix));
                    $fig['solo_calls']++;
                    try {
                        if (mt_rand(0, 1)) {
                            $one->isLocked(RESOURCES[mt_rand(0, count(RESOURCES) - 1)]);
                        } elseif ($s = $one->lock("solo$id", 500)) {
                            $s->release();
                        }
                    } catch (RedLock\QuorumException $e) {
                    }
                }
            }
            if ($rl === null || $rlPrefix !== $prefix || mt_rand(1, 100) <= 70) {
                $rl = new RedLock($nodes, fr_opts($prefix));
                $rlPrefix = $prefix;
            }
            // (not the resource a long holder is about to take: the injector's "quiet" key)
            $res = array_values(array_diff(RESOURCES, [$quiet]));
            fr_hold($fig, $id, $rl, $prefix, $res[mt_rand(0, count($res) - 1)], mt_rand($lo, $hi), mt_rand(0, 600), mt_rand(0, 15));
            usleep(mt_rand(0, 30000));
        }
    } catch (Throwable $e) {
        $fig['errors'][] = get_class($e) . ': ' . $e->getMessage();
    }
    write_json(fr_env('FR_DIR') . "/worker-$id.json", $fig);
    return $fig['errors'] ? 1 : 0;
}

/** a long hold in a process of its own (started by a long worker): prints its figures */
function hold(int $id, string $prefix, string $res, int $ttl, int $workMs, string $ack): int
{
    $fig = ['attempts' => 0, 'holds' => 0, 'nulls' => 0, 'quorum' => 0, 'live_overlaps' => 0, 'incs' => [], 'late_writes' => 0, 'errors' => []];
    try {
        fr_hold($fig, $id, new RedLock(fr_nodes(), fr_opts($prefix)), $prefix, $res, $ttl, 3000, $workMs, $ack);
    } catch (Throwable $e) {
        $fig['errors'][] = 'hold: ' . get_class($e) . ': ' . $e->getMessage();
    }
    echo json_encode($fig);
    return 0;
}

// ---- the injector -------------------------------------------------------------------------
final class Injector
{
    private array $nodes;
    private array $ns;
    private array $paused = [];
    private array $cut = [];
    private array $lossyUntil = [];
    private array $heals = [];          // "resumeK"/"healK" => [due ms, K, kind]: one of each per node
    private array $count = [];
    private $events;
    private float $nextBg;
    private int $longMax;
    private string $prefix = '';
    private array $offset = [];

    public function __construct()
    {
        $this->nodes = fr_nodes();
        $ns = fr_env('FR_NS');
        $this->ns = $ns === '' ? [] : explode(',', $ns);
        $this->events = fopen(fr_env('FR_DIR') . '/events.log', 'a');
        $this->nextBg = fr_ms() + 500;
        $this->longMax = fr_range('FR_LONG_TTL', '4000-9000')[1];
        for ($k = 1; $k <= N; $k++) {
            $this->lossyUntil[$k] = 0.0;
            $this->offset[$k] = 0;
        }
    }

    public function ev(string $what): void
    {
        fwrite($this->events, sprintf("%d %s\n", fr_now(), $what));
        fflush($this->events);
    }
    private function tally(string $kind): void { $this->count[$kind] = ($this->count[$kind] ?? 0) + 1; }
    public function counts(): array { return $this->count; }
    private function sh(string $cmd): bool
    {
        exec($cmd . ' 2>&1', $out, $rc);
        if ($rc !== 0) $this->ev('command failed: ' . $cmd . ': ' . implode(' ', $out));
        return $rc === 0;
    }
    private function pid(int $k): int { return (int) @file_get_contents(explode(',', fr_env('FR_PIDFILES'))[$k - 1]); }
    private function inNs(int $k): string { return $this->ns ? 'ip netns exec ' . $this->ns[$k - 1] . ' ' : ''; }
    private function unavailable(): int { return count($this->paused) + count($this->cut); }
    /** nodes (other than $k) whose data may still be missing a lock that is valid */
    private function lossy(int $except = 0): int
    {
        $n = 0;
        foreach ($this->lossyUntil as $k => $t) if ($k !== $except && $t > fr_ms()) $n++;
        return $n;
    }
    /** a data loss on $k is allowed while at most N - Q nodes have lost data within a window */
    private function mayLose(int $k): bool { return $this->lossy($k) + 1 <= N - Q; }
    private function lost(int $k): void
    {
        // the longest TTL in use + drift + the restart check's 1 s uptime margin + slack
        $this->lossyUntil[$k] = fr_ms() + $this->longMax * 1.01 + 2500;
    }

    // -- the faults --
    public function pause(int $k, int $ms): bool
    {
        if (isset($this->paused[$k]) || !posix_kill($this->pid($k), SIGSTOP)) return false;
        $this->paused[$k] = true;
        $this->heals["resume$k"] = [fr_ms() + $ms, $k, 'resume'];
        $this->tally('pause');
        $this->ev("pause n$k {$ms}ms");
        return true;
    }
    public function resume(int $k): void
    {
        if (!isset($this->paused[$k])) return;
        posix_kill($this->pid($k), SIGCONT);
        unset($this->paused[$k], $this->heals["resume$k"]);
        $this->ev("resume n$k");
    }
    public function partition(int $k, int $ms): void
    {
        if (!$this->ns || isset($this->cut[$k])) return;
        $ns = $this->ns[$k - 1];
        if (!$this->sh("ip netns exec $ns nft add rule inet rlnf in iifname eth0 drop")
            || !$this->sh("ip netns exec $ns nft add rule inet rlnf out oifname eth0 drop")) return;
        $this->cut[$k] = true;
        $this->heals["heal$k"] = [fr_ms() + $ms, $k, 'heal'];
        $this->tally('partition');
        $this->ev("partition n$k {$ms}ms");
    }
    public function heal(int $k): void
    {
        if (!isset($this->cut[$k])) return;
        $ns = $this->ns[$k - 1];
        $this->sh("ip netns exec $ns nft flush chain inet rlnf in");
        $this->sh("ip netns exec $ns nft flush chain inet rlnf out");
        unset($this->cut[$k], $this->heals["heal$k"]);
        $this->ev("heal n$k");
    }
    /** node $k's redis-server on its address, no RDB, no AOF, under the clock-shifting
     * library when there is one (its offset in $FR_DIR/clock-K) */
    private function start(int $k): bool
    {
        [$h, $p] = explode(':', $this->nodes[$k - 1]);
        $d = fr_env('FR_NODEDIR');
        $so = getenv('FR_CLOCKSO') ?: '';
        $pre = $so === '' ? '' : 'env LD_PRELOAD=' . escapeshellarg($so) . ' RT_CLOCK_FILE=' . escapeshellarg(fr_env('FR_DIR') . "/clock-$k") . ' ';
        return $this->sh($this->inNs($k) . $pre . "redis-server --bind $h --port $p --save '' --appendonly no --protected-mode no"
            . ' --daemonize yes --dir ' . escapeshellarg($d) . ' --pidfile ' . escapeshellarg(explode(',', fr_env('FR_PIDFILES'))[$k - 1])
            . ' --logfile ' . escapeshellarg("$d/fr-node$k.log") . " --dbfilename fr-node$k.rdb");
    }
    /** SIGKILL and start again on the same address, empty (no RDB, no AOF); $force: also
     * beyond the data-loss limit (the nodes' first start under the clock library) */
    public function restart(int $k, bool $force = false): bool
    {
        if (!$force && !$this->mayLose($k)) return false;
        $pid = $this->pid($k);
        $this->ev("kill n$k (restart)");               // (the restart's own line comes once it answers)
        if ($pid > 0) posix_kill($pid, SIGKILL);
        for ($i = 0; $i < 100 && $pid > 0 && file_exists("/proc/$pid") && !str_contains((string) @file_get_contents("/proc/$pid/stat"), ') Z'); $i++) usleep(10000);
        unset($this->paused[$k], $this->heals["resume$k"]);
        $this->lost($k);
        $ok = $this->start($k);
        [$h, $p] = explode(':', $this->nodes[$k - 1]);
        for ($i = 0; $i < 100; $i++) {
            if (trim((string) shell_exec($this->inNs($k) . "timeout 1 redis-cli -h $h -p $p PING 2>/dev/null")) === 'PONG') break;
            usleep(20000);
        }
        $this->tally('restart');
        $this->ev("restart n$k" . ($ok ? '' : ' (FAILED)'));
        return true;
    }
    /** its wall clock forward by $s seconds (its keys expire early), while it is paused
     * for more than a second: the clients' TIME sample (at most once a second) then
     * always comes after the step (docs/api.md "Restarted nodes": seen within a second) */
    public function clockStep(int $k, int $s): bool
    {
        if ((getenv('FR_CLOCKSO') ?: '') === '' || isset($this->paused[$k]) || !$this->mayLose($k)) return false;
        if (!$this->pause($k, mt_rand(1300, 2000))) return false;
        $this->lost($k);
        $this->offset[$k] += $s * 1000000;
        $f = fopen(fr_env('FR_DIR') . "/clock-$k", 'c+');     // (never truncated: it is mapped)
        fwrite($f, pack('q', $this->offset[$k]));
        fclose($f);
        $this->tally('clock_step');
        $this->ev("clock step n$k +{$s}s");
        return true;
    }
    /** DEL of a lock key on one node, only where its token stays on a quorum without it:
     * the value must be on at least Q + 1 nodes (all N answering), and the DEL compares it */
    public function delKey(int $k, string $key): bool
    {
        if (!$this->mayLose($k) || $this->unavailable() > 0) return false;
        $vals = [];
        try {
            foreach ($this->nodes as $i => $a) $vals[$i + 1] = fr_node_cmd($a, 'GET', $key);
            $v = $vals[$k];
            if (!is_string($v) || count(array_keys($vals, $v, true)) < Q + 1) return false;
            if (fr_node_cmd($this->nodes[$k - 1], 'EVAL', DEL_IF, 1, $key, $v) !== 1) return false;
        } catch (Throwable $e) {
            return false;
        }
        $this->lost($k);
        $this->tally('del');
        $this->ev("del n$k $key");
        return true;
    }
    /** the key taken on $nodes as another client's failed attempt would leave it (contention) */
    public function occupy(array $nodes, string $key, string $val, int $ms): void
    {
        $this->each($nodes, 'SET', $key, $val, 'NX', 'PX', $ms);
        $this->ev('occupy n' . implode(',n', $nodes) . " $key");
    }
    public function unoccupy(array $nodes, string $key, string $val): void
    {
        $this->each($nodes, 'EVAL', DEL_IF, 1, $key, $val);
    }
    /** one command to each of $nodes, an unreachable one passed over */
    private function each(array $nodes, string|int ...$args): void
    {
        foreach ($nodes as $k) {
            try {
                fr_node_cmd($this->nodes[$k - 1], ...$args);
            } catch (Throwable $e) {
            }
        }
    }

    // -- time: due heals run, background faults come at random while waiting --
    private bool $bg = true;
    private bool $noLoss = false;
    public function wait(float $ms): void
    {
        $until = fr_ms() + $ms;
        do {
            $now = fr_ms();
            foreach ($this->heals as $i => [$due, $k, $what]) {
                if ($due <= $now) {
                    unset($this->heals[$i]);
                    $what === 'resume' ? $this->resume($k) : $this->heal($k);
                }
            }
            if ($this->bg && $now >= $this->nextBg) {
                $this->background();
                $this->nextBg = fr_ms() + mt_rand(300, 1200);
            }
            usleep(10000);
        } while (fr_ms() < $until);
    }
    /** one random fault of any kind, within the limits (at most 2 nodes unreachable, at most
     * N - Q nodes whose data may lack a valid lock) */
    private function background(): void
    {
        $k = mt_rand(1, N);
        $r = mt_rand(1, $this->noLoss ? 60 : 100);
        if ($r <= 35) {
            if ($this->unavailable() < 2) $this->pause($k, mt_rand(100, 1500));
        } elseif ($r <= 60) {
            if ($this->unavailable() < 2) $this->partition($k, mt_rand(300, 2500));
        } elseif ($r <= 72) {
            if (!isset($this->cut[$k]) && $this->unavailable() < 2) $this->restart($k);
        } elseif ($r <= 82) {
            if ($this->unavailable() < 2) $this->clockStep($k, mt_rand(5, 60));
        } elseif ($this->prefix !== '') {
            $this->delKey($k, $this->prefix . RESOURCES[mt_rand(0, count(RESOURCES) - 1)]);
        }
    }

    public function setRound(string $prefix): void
    {
        $this->prefix = $prefix;
        aux()->cmd('SET', fr_key('round'), $prefix);
        $this->ev("round $prefix");
    }

    /** A scenario round, its parameters at random: a holder with a long TTL on a bare
     * quorum (the others cut off by a partition, or taken by a competing attempt), then
     * empty restarts of some of the quorum within one grace, a slow node (paused or cut
     * off) among the rest; the short-TTL and one-node workers go on meanwhile. */
    public function round(int $i, float $stopAt): void
    {
        $this->setRound('fr' . fr_env('FR_RUN') . ":R$i:");
        // the short workers use the new prefix; the data-loss limit (earlier restarts'
        // windows) must allow 2 restarts: pauses and partitions meanwhile
        $this->noLoss = true;
        $this->wait(mt_rand(300, 1000));
        while ($this->lossy() > 0 && fr_ms() < $stopAt) $this->wait(100);
        $this->noLoss = false;
        $this->bg = false;
        while ($this->unavailable() > 0 && fr_ms() < $stopAt) $this->wait(50);
        if (fr_ms() >= $stopAt) return;
        $all = range(1, N);
        shuffle($all);
        $bare = array_slice($all, 0, Q);
        $rest = array_slice($all, Q);
        $res = RESOURCES[mt_rand(0, count(RESOURCES) - 1)];
        [$tlo, $thi] = fr_range('FR_LONG_TTL', '4000-9000');
        $ttl = mt_rand($tlo, $thi);
        $byPartition = $this->ns && mt_rand(1, 100) <= 85;
        $junk = 'spoiler:' . bin2hex(random_bytes(4));
        if ($byPartition) {
            foreach ($rest as $k) $this->partition($k, 60000);    // healed below
        } else {
            $this->occupy($rest, $this->prefix . $res, $junk, 5000);
        }
        $rid = "$i:" . bin2hex(random_bytes(3));
        aux()->cmd('SET', fr_key('quiet'), $res, 'PX', 6000);   // the short workers leave it alone until held
        aux()->cmd('RPUSH', fr_key('req'), "{$this->prefix}|$res|$ttl|" . ($ttl - 300) . "|$rid");
        $this->ev("round $i: holder asked for {$this->prefix}$res ttl $ttl on n" . implode(',n', $bare)
            . ($byPartition ? ' (others cut off)' : ' (others taken)'));
        $t0 = fr_ms();
        $ack = null;
        while (fr_ms() - $t0 < 5000 && ($ack = aux()->cmd('GET', fr_key("ack:$rid"))) === null) $this->wait(20);
        aux()->cmd('DEL', fr_key('quiet'));
        $this->ev("round $i: holder " . ($ack === 'yes' ? 'holds' : 'did not get it'));
        if ($byPartition) {
            // its SET to the cut-off nodes is given up (rlc_abandon: 1 s without an ACK), not
            // delivered at the heal
            $this->wait(1200);
            foreach ($rest as $k) $this->heal($k);
        } else {
            $this->unoccupy($rest, $this->prefix . $res, $junk);
        }
        if ($ack === 'yes') {
            // restarts of 1..N-Q nodes of the holder's quorum, within one grace
            shuffle($bare);
            $nr = mt_rand(1, 100) <= 80 ? N - Q : 1;
            $this->wait(mt_rand(0, 800));
            for ($j = 0; $j < $nr; $j++) {
                if ($j > 0) $this->wait(mt_rand(0, 1500));
                $this->restart($bare[$j]);
            }
            // a slow node among the holder's others
            $slow = $bare[$nr + mt_rand(0, Q - $nr - 1)];
            $this->wait(mt_rand(0, 1000));
            $ms = mt_rand(1500, 4000);
            if ($this->ns && mt_rand(0, 1)) {
                $this->partition($slow, $ms);
            } else {
                $this->pause($slow, $ms);
            }
        }
        $this->bg = true;
        $this->wait(min($ttl, max(0, $stopAt - fr_ms())));
    }

    public function healAll(): void
    {
        foreach (array_keys($this->paused) as $k) $this->resume($k);
        foreach (array_keys($this->cut) as $k) $this->heal($k);
        $this->heals = [];
    }
}

/** the nodes' first start under the clock-shifting library (before any worker) */
function nodes_up(): int
{
    $inj = new Injector();
    for ($k = 1; $k <= N; $k++) {
        $f = fr_env('FR_DIR') . "/clock-$k";
        file_put_contents($f, pack('q', 0));
        $inj->restart($k, true);
    }
    return 0;
}

function inject(): int
{
    mt_srand((int) fr_env('FR_SEED'));
    $end = (float) fr_env('FR_END');
    $stopAt = fr_ms() + ($end - 3 - microtime(true)) * 1000;   // heal 3 s before the workers stop
    $inj = new Injector();
    // the workers first learn every node (their warm-up call)
    $want = (int) fr_env('FR_WORKERS');
    for ($i = 0; $i < 750 && (int) aux()->cmd('GET', fr_key('ready')) < $want; $i++) usleep(20000);
    $inj->ev('workers ready: ' . aux()->cmd('GET', fr_key('ready')));
    $rounds = 0;
    try {
        while (fr_ms() < $stopAt) {
            $inj->round(++$rounds, $stopAt);
        }
    } finally {
        $inj->healAll();
    }
    $inj->ev('done');
    file_put_contents(fr_env('FR_DIR') . '/faults.json', json_encode(['rounds' => $rounds] + $inj->counts()));
    return 0;
}

// ---- the check ----------------------------------------------------------------------------
function check(): int
{
    $dir = fr_env('FR_DIR');
    $holds = [];
    foreach (glob("$dir/holds-*.log") as $f) {
        foreach (file($f, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $line) {
            $h = json_decode($line, true);
            if (is_array($h)) $holds[$h['k']][] = $h;
        }
    }
    $events = [];
    foreach (@file("$dir/events.log", FILE_IGNORE_NEW_LINES) ?: [] as $line) {
        [$t, $what] = explode(' ', $line, 2);
        $events[] = [(int) $t, $what];
    }
    $t0 = $events ? $events[0][0] : 0;
    $at = fn(int $t): string => sprintf('%.3f s', ($t - $t0) / 1e9);
    $overlaps = [];
    $nholds = 0;
    foreach ($holds as $key => $list) {
        usort($list, fn($a, $b) => $a['t1'] <=> $b['t1']);
        $nholds += count($list);
        $open = null;
        foreach ($list as $h) {
            if ($open !== null && $h['t1'] < $open['te'] && $h['tok'] !== $open['tok']) {
                $overlaps[] = [$key, $open, $h];
            }
            if ($open === null || $h['te'] > $open['te']) $open = $h;
        }
    }
    $problems = [];
    foreach (array_slice($overlaps, 0, 5) as [$key, $a, $b]) {
        $msg = sprintf('overlap on %s: worker %d (ttl %d ms) holds from %s to %s; worker %d (ttl %d ms) acquired at %s, %.0f ms before the first hold ended',
            $key, $a['w'], $a['ttl'], $at($a['t1']), $at($a['te']), $b['w'], $b['ttl'], $at($b['t1']), ($a['te'] - $b['t1']) / 1e6)
            . ($a['on'] ?? '' ? " (nodes 1-5 at acquisition: {$a['on']} / {$b['on']}; t its token, o another, - none, ? no answer)" : '');
        $problems[] = $msg;
        // what the injector did while the first hold lasted
        foreach ($events as [$t, $what]) {
            if ($t >= $a['t1'] - 5000000000 && $t <= $b['t1']) $problems[] = '    ' . $at($t) . " $what";
        }
    }
    // workers' figures (tests/harness/torture/common.php: the sums of their integer fields), counters
    [$reports, $fig] = read_reports($dir, $problems);
    $fig += ['holds' => 0, 'attempts' => 0, 'quorum' => 0, 'nulls' => 0, 'solo_calls' => 0, 'live_overlaps' => 0, 'late_writes' => 0];
    $incs = [];
    $kinds = [];
    foreach ($reports as $w) {
        $kinds[$w['kind']] = ($kinds[$w['kind']] ?? 0) + $w['holds'];
        foreach ($w['incs'] as $k => $n) $incs[$k] = ($incs[$k] ?? 0) + $n;
        foreach ($w['errors'] as $e) $problems[] = "worker {$w['id']}: $e";
    }
    $want = (int) fr_env('FR_WORKERS');
    $nrep = count($reports);
    if ($nrep !== $want) $problems[] = "$nrep of $want workers reported";
    $lost = 0;
    foreach ($incs as $k => $n) {
        $c = (int) aux()->cmd('GET', fr_key("c:$k"));
        if ($c !== $n) $lost += $n - $c;
    }
    $faults = json_decode((string) @file_get_contents("$dir/faults.json"), true) ?: [];
    printf("holds: %d (%s), attempts %d, null %d, QuorumException %d, one-node calls %d\n", $fig['holds'],
        implode(', ', array_map(fn($k, $v) => "$k $v", array_keys($kinds), $kinds)), $fig['attempts'], $fig['nulls'], $fig['quorum'], $fig['solo_calls']);
    printf("faults: %s\n", implode(', ', array_map(fn($k, $v) => "$k $v", array_keys($faults), $faults)));
    printf("overlapping holds: %d, overlaps seen live: %d, lost updates: %d, late writes: %d\n",
        count($overlaps), $fig['live_overlaps'], $lost, $fig['late_writes']);
    $res = [];
    $res['no overlapping holds'] = !$overlaps;
    $res['no lost update'] = $lost === 0 || $lost <= $fig['late_writes'] && !$overlaps;
    $res['workers ran and reported'] = $nrep === $want && !array_filter($problems, fn($p) => str_starts_with($p, 'worker ') || str_contains($p, 'reported'));
    $res['holds and faults happened'] = $nholds > 0 && ($kinds['long'] ?? 0) > 0 && ($faults['restart'] ?? 0) > 0 && ($faults['rounds'] ?? 0) > 0;
    foreach ($problems as $p) if ($p !== '') echo "$p\n";
    $failed = 0;
    foreach ($res as $name => $ok) {
        echo ($ok ? 'PASS' : 'FAIL'), " $name\n";
        $failed += $ok ? 0 : 1;
    }
    file_put_contents("$dir/result", sprintf("%d %d\n", count($res) - $failed, $failed));
    return $failed ? 1 : 0;
}

$mode = $argv[1] ?? '';
exit(match ($mode) {
    'worker' => worker((int) $argv[2], $argv[3]),
    'hold' => hold((int) $argv[2], $argv[3], $argv[4], (int) $argv[5], (int) $argv[6], $argv[7]),
    'inject' => inject(),
    'nodes-up' => nodes_up(),
    'check' => check(),
    default => (function () { fwrite(STDERR, "usage: faultrun.php worker ID KIND | nodes-up | inject | check\n"); return 2; })(),
});
