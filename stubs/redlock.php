<?php

/**
 * IDE / static-analysis stub for the redlock extension (PHPStan, Psalm, PhpStorm).
 *
 * Never include this file at run time: the classes come from the extension.
 * These docblocks are the per-method documentation of the API; docs/api.md is
 * the reference around them (semantics, costs, the options table). Names,
 * parameters, types, defaults and flags mirror redlock.stub.php exactly;
 * tests/api/reflection_stub.phpt compares this file with the loaded extension
 * through Reflection, and scripts/check-docs.sh checks that every method,
 * option and INI entry appears here and in docs/api.md, so keep them in step.
 *
 * Option keys accepted per call by lock(), synchronized(), lockAll() and
 * semaphore(): retry_count, retry_delay, retry_jitter, wait, drift_factor,
 * fencing, auto_release, throw_on_lost, auto_extend, max_hold,
 * wake_on_release, fair, on_lost, token (not semaphore()), shared (not
 * semaphore()) and weight (semaphore() only). Constructor-only (a
 * \ValueError per call): connect_timeout, timeout, persistent, prefix,
 * restart_grace, tls. Per call only (a \ValueError in the constructor):
 * token, shared, weight. restore() takes its own: resources, mode, limit,
 * weight.
 *
 * INI entries (PHP_INI_ALL), the defaults of the options of the same name:
 * redlock.retry_count, redlock.retry_delay, redlock.retry_jitter,
 * redlock.wait, redlock.drift_factor, redlock.connect_timeout,
 * redlock.timeout, redlock.persistent, redlock.prefix, redlock.fencing,
 * redlock.auto_release, redlock.throw_on_lost, redlock.auto_extend,
 * redlock.max_hold, redlock.wake_on_release, redlock.fair, redlock.on_lost
 * ("throw" or ""), redlock.restart_grace ("auto" or ms); token, shared,
 * weight and tls have none. redlock.metrics (PHP_INI_SYSTEM, on): the
 * pool-wide table of RedLock::metrics().
 */

namespace {
/**
 * A RedLock lock manager over N independent Redis masters.
 *
 * Acquisition sends `SET prefix.resource token NX PX ttl` to every node in
 * parallel and succeeds only with a quorum (floor(N/2)+1) of OKs and a
 * positive validity time measured on a monotonic clock.
 *
 * Instances are final, reject dynamic properties and cannot be serialized.
 */
final class RedLock
{
    /**
     * @param non-empty-array<array-key, non-empty-string|array{
     *     host?: non-empty-string,
     *     socket?: non-empty-string,
     *     port?: int<1, 65535>,
     *     timeout?: int<1, 60000>,
     *     connect_timeout?: int<1, 60000>,
     *     user?: string|null,
     *     password?: string|null,
     *     database?: int<0, 1000000>,
     *     tls?: bool|array{
     *         cafile?: string|null, capath?: string|null, local_cert?: string|null,
     *         local_pk?: string|null, passphrase?: string|null, verify_peer?: bool,
     *         verify_peer_name?: bool, peer_name?: string|null
     *     }
     * }> $nodes One entry per independent Redis master (at most 64): a URI
     *     string ("redis://[user:password@]host[:port][/db]", "rediss://...",
     *     "unix:///path/to/redis.sock", "host:port") or an array with either
     *     "host" (port defaults to 6379) or an absolute "socket" path; "user"
     *     needs a "password"; per-node "timeout"/"connect_timeout" override
     *     the options. rediss:// and "tls" => true|array connect with TLS;
     *     a node's "tls" array overrides the "tls" option setting by setting
     *     (a build without OpenSSL refuses TLS nodes with a \ValueError). The
     *     same server given twice, in any form, is a \ValueError.
     * @param array{
     *     retry_count?: int<0, 10000>,
     *     retry_delay?: int<0, max>,
     *     retry_jitter?: int<0, max>,
     *     wait?: int<0, max>,
     *     drift_factor?: float,
     *     connect_timeout?: int<1, 60000>,
     *     timeout?: int<1, 60000>,
     *     persistent?: bool,
     *     prefix?: string,
     *     fencing?: bool,
     *     auto_release?: bool,
     *     throw_on_lost?: bool,
     *     auto_extend?: bool,
     *     max_hold?: int<0, max>,
     *     on_lost?: 'throw'|(callable(Lock): void)|null,
     *     wake_on_release?: bool,
     *     fair?: bool,
     *     restart_grace?: 'auto'|int<0, 2147483647>,
     *     tls?: array{
     *         cafile?: string|null, capath?: string|null, local_cert?: string|null,
     *         local_pk?: string|null, passphrase?: string|null, verify_peer?: bool,
     *         verify_peer_name?: bool, peer_name?: string|null
     *     }
     * } $options Defaults for every lock taken through this object.
     *     Defaults: retry_count 3, retry_delay 200 ms, retry_jitter 100 ms,
     *     wait 0 ms, drift_factor 0.01 (in [0, 1)), connect_timeout 50 ms,
     *     timeout 50 ms, persistent true, prefix "", fencing false,
     *     auto_release true, throw_on_lost false, auto_extend false,
     *     max_hold 0 ms (no limit), wake_on_release true, fair false; each
     *     default comes from the INI entry redlock.<option>. prefix is at
     *     most 512 bytes.
     *     fair => true: with wait, waiters get the lock in the order they
     *     asked, across processes and hosts, and newcomers do not overtake
     *     them (docs/api.md "Fair waiting").
     *     restart_grace ('auto'): how long a node that restarted without its
     *     data (AOF off) stays out of the quorum: 'auto' = the longest TTL
     *     asked for under this prefix and node list, plus the drift (kept on
     *     the nodes, prefix . "\0redlock:maxttl"), an int of ms, or 0 (off);
     *     constructor and INI only.
     *     fencing => true: each lock also gets Lock::$fence, a positive int
     *     that grows with every fenced acquisition of any resource under
     *     this prefix and node list (two more round trips, in parallel).
     *     tls: TLS settings (named as PHP's ssl context options) for every TLS
     *     node; constructor only, no INI entry; does not turn TLS on by itself.
     *     Unknown settings, wrong types and unreadable files are a \ValueError
     *     naming the setting; the passphrase is never shown.
     *     auto_extend => true: a background watchdog thread (its own
     *     connections) extends the lock by its ttl every third of the ttl
     *     until release(), the end of the request, max_hold ms (> 0) or the
     *     first failed extension (then the lock is lost: isValid() false).
     *     on_lost: 'throw' (LockLostException), a callable (called with the
     *     Lock, then the code goes on) or null (default), at the next
     *     interrupt point of the holder's PHP code once the lock is known lost
     *     (failed watchdog extension, max_hold then validity end, validity end
     *     while held). Once per lock; never after release(), in a forked
     *     child or during request shutdown. INI redlock.on_lost: "throw" or "".
     *     synchronized() with auto_extend: 'throw' unless given.
     *
     * @throws \ValueError empty node list, unparsable URI, port out of range,
     *     duplicate node, unknown option or node key, value out of range
     *     (the message names the entry and field, never a password).
     * @throws \TypeError a node entry or option value of the wrong type.
     */
    public function __construct(array $nodes, array $options = []) {}

    /**
     * Try to acquire $resource for $ttl milliseconds.
     *
     * Returns null when another owner holds it (after the configured retries
     * or once `wait` ran out), or when the validity came out <= 0. With `wait`
     * and `wake_on_release` (the default) it sleeps until the holder releases
     * (a message on "redlock:released:" . key) or its retry timer runs out,
     * whichever comes first, never past the deadline. Locks are
     * not reentrant: locking a resource this process already holds is a
     * conflict too. The lock is never released by object destruction; with
     * `auto_release` it is released at request end.
     *
     * @param non-empty-string $resource 1 to 512 bytes, binary allowed, no NUL.
     *     The Redis key is exactly prefix . resource.
     * @param int<1, 2147483647> $ttl Milliseconds.
     * @param array{
     *     retry_count?: int<0, 10000>,
     *     retry_delay?: int<0, max>,
     *     retry_jitter?: int<0, max>,
     *     wait?: int<0, max>,
     *     drift_factor?: float,
     *     fencing?: bool,
     *     auto_release?: bool,
     *     throw_on_lost?: bool,
     *     auto_extend?: bool,
     *     max_hold?: int<0, max>,
     *     on_lost?: 'throw'|(callable(Lock): void)|null,
     *     wake_on_release?: bool,
     *     fair?: bool,
     *     token?: non-empty-string,
     *     shared?: bool
     * } $options Per-call overrides of the constructor options. token (per
     *     call only, 16 to 128 bytes, no NUL): use it instead of a random
     *     token; the caller makes it unique and unguessable (see restore()).
     *     shared (per call only): a read lock, held with other read locks,
     *     never with an exclusive one; with the token of a lock of the other
     *     mode it converts that lock (docs/api.md "Read locks"). fair with
     *     shared is a \ValueError.
     *
     * @return RedLock\Lock|null
     *
     * @throws RedLock\QuorumException on the last attempt fewer than a quorum
     *     of nodes answered at all (down, timeout, auth error); the message
     *     lists each failed node and why.
     * @throws \ValueError bad $resource or $ttl, unknown option, a
     *     constructor-only option (connect_timeout, timeout, persistent,
     *     prefix), value out of range, a token of the wrong length or with
     *     NUL bytes.
     * @throws \TypeError an option value of the wrong type.
     */
    public function lock(string $resource, int $ttl, array $options = []): ?RedLock\Lock {}

    /**
     * Run $fn while holding the lock and return its result.
     *
     * $fn receives the RedLock\Lock. The lock is released after $fn returns
     * or throws; $fn's exception is rethrown.
     *
     * @template T
     *
     * @param non-empty-string $resource 1 to 512 bytes, binary allowed, no NUL.
     * @param int<1, 2147483647> $ttl Milliseconds.
     * @param callable(RedLock\Lock): T $fn
     * @param array{
     *     retry_count?: int<0, 10000>,
     *     retry_delay?: int<0, max>,
     *     retry_jitter?: int<0, max>,
     *     wait?: int<0, max>,
     *     drift_factor?: float,
     *     fencing?: bool,
     *     auto_release?: bool,
     *     throw_on_lost?: bool,
     *     auto_extend?: bool,
     *     max_hold?: int<0, max>,
     *     on_lost?: 'throw'|(callable(Lock): void)|null,
     *     wake_on_release?: bool,
     *     fair?: bool,
     *     token?: non-empty-string,
     *     shared?: bool
     * } $options Per-call overrides of the constructor options. token (per
     *     call only, 16 to 128 bytes, no NUL): use it instead of a random
     *     token; the caller makes it unique and unguessable (see restore()).
     *     shared (per call only): a read lock, held with other read locks,
     *     never with an exclusive one; with the token of a lock of the other
     *     mode it converts that lock (docs/api.md "Read locks"). fair with
     *     shared is a \ValueError.
     *
     * @return T
     *
     * @throws RedLock\LockConflictException where lock() would return null.
     * @throws RedLock\QuorumException where lock() would throw it.
     * @throws RedLock\LockLostException with 'throw_on_lost', when the release
     *     after $fn found the lock gone (not when $fn itself threw).
     * @throws \ValueError bad $resource, $ttl or option (as for lock()), a
     *     token of the wrong length or with NUL bytes.
     * @throws \TypeError an option value of the wrong type.
     * @throws \Throwable whatever $fn throws, after the lock was released.
     */
    public function synchronized(string $resource, int $ttl, callable $fn, array $options = []): mixed {}

    /**
     * True when a majority of nodes hold a key for $resource (any owner).
     *
     * @param non-empty-string $resource 1 to 512 bytes, binary allowed, no NUL.
     *
     * @throws RedLock\QuorumException fewer than a quorum of nodes answered.
     * @throws \ValueError bad $resource.
     */
    public function isLocked(string $resource): bool {}

    /**
     * A Lock for a token acquired elsewhere (another process, a queued job),
     * e.g. with lock()'s 'token' option. No node is asked (but for a permit).
     *
     * release(), extend() and isHeld() work on it as usual (token-checked).
     * Its validity is unknown: remaining() is 0 and isValid() false until an
     * extend() succeeds; $ttl is 0 until then; $fence is null. It is never
     * released at request end ('auto_release' applies only to locks this
     * process acquired).
     *
     * @param non-empty-string $resource 1 to 512 bytes, binary allowed, no NUL.
     * @param non-empty-string $token 16 to 128 bytes, no NUL.
     * @param array{
     *     resources?: list<non-empty-string>,
     *     mode?: 'exclusive'|'shared'|'permit',
     *     limit?: int<1, 1024>,
     *     weight?: int<1, 1024>
     * } $options 'resources': every resource of a lockAll() lock ($resource
     *     must be one of them); 'mode': 'exclusive' (the default), 'shared'
     *     (a read lock) or 'permit' (a semaphore permit, with its 'limit' and,
     *     to check it, its 'weight'). A permit is the one restore that asks
     *     the nodes: which slots hold the token (one round trip).
     *
     * @throws \ValueError bad $resource, $token or options.
     * @throws RedLock\LockLostException mode 'permit': no permit of that weight holds the token.
     * @throws RedLock\QuorumException mode 'permit': fewer than a quorum of nodes answered.
     */
    public function restore(string $resource, string $token, array $options = []): RedLock\Lock {}

    /**
     * Delete $resource's key on every node, whoever holds it (admin tools,
     * Laravel's forceRelease()). True when a quorum of nodes answered; false
     * when fewer did (the nodes that answered deleted it).
     *
     * @param non-empty-string $resource 1 to 512 bytes, binary allowed, no NUL.
     *
     * @throws \ValueError bad $resource.
     */
    public function forceRelease(string $resource): bool {}

    /**
     * All-or-nothing lock of several resources in one fan-out: each node
     * sets every key or none (one script), and counts toward the quorum
     * only when it set them all. One token, one validity, one fence. The
     * Lock's $resource is the first of $resources; release(), extend() and
     * isHeld() act on all of them. Order does not matter; no deadlock.
     * A conflict on any of them returns null.
     *
     * @param list<non-empty-string> $resources 1 to 64 distinct resources, each as for lock().
     * @param int<1, 2147483647> $ttl ms.
     * @param array<string, mixed> $options as lock()'s ('shared': read locks
     *     on all of them); 'fair' given per call is a \ValueError.
     *
     * @throws \ValueError empty, duplicate or too many resources, a bad resource, $ttl or option.
     * @throws RedLock\QuorumException fewer than a quorum of nodes answered.
     */
    public function lockAll(array $resources, int $ttl, array $options = []): ?RedLock\Lock {}

    /**
     * One of $limit permits of $resource (a Lock with $mode 'permit'):
     * released, extended, watched (auto_extend, on_lost) and waited for
     * (wait, woken on release) like any lock. At most $limit holders at once
     * while their validity lasts, with up to N - quorum nodes down: each
     * permit is a quorum on one of $limit slots, each an ordinary RedLock
     * mutex. One round trip when a permit is free. A semaphore's keys are its
     * own: lock($resource) never conflicts with it.
     *
     * @param non-empty-string $resource 1 to 512 bytes, binary allowed, no NUL.
     * @param int<1, 1024> $limit the same in every call while permits are held.
     * @param int<1, 2147483647> $ttl ms.
     * @param array<string, mixed> $options lock()'s, but 'token', 'shared' and
     *     'fair' (each a \ValueError), and 'weight' (1 ... $limit, default 1):
     *     that many permits at once, all or none.
     *
     * @throws \ValueError bad $resource, $limit, $ttl, weight or option.
     * @throws RedLock\Exception permits of $resource are held under another limit (both named).
     * @throws RedLock\QuorumException fewer than a quorum of nodes answered.
     */
    public function semaphore(string $resource, int $limit, int $ttl, array $options = []): ?RedLock\Lock {}

    /**
     * What request end does, for worker runtimes where one PHP request serves
     * many (FrankenPHP worker mode, RoadRunner, Swoole, Laravel Octane): release
     * every lock acquired with 'auto_release' that this worker (this thread, in
     * ZTS) still holds, stop every auto_extend watchdog of this request, and
     * flush what is unwritten. Their Lock objects turn released. Call it at the
     * end of each request the worker serves. Never throws.
     *
     * @return int<0, max> how many of them a quorum confirmed released.
     */
    public static function releaseAll(): int {}

    /**
     * The number of nodes that must agree: floor(N/2)+1. Never throws.
     *
     * @return positive-int
     */
    public function quorum(): int {}

    /**
     * The normalised node list, in the given order, without passwords. Never throws.
     *
     * @return list<array{
     *     name: string,
     *     host: string|null,
     *     port: int|null,
     *     socket: string|null,
     *     database: int,
     *     user: string|null,
     *     tls: bool
     * }> name is "host:port" or "unix:/path".
     */
    public function nodes(): array {}

    /**
     * Counters for the current worker process (all RedLock objects together).
     * Never throws.
     *
     * conflicts counts lock() calls that returned null; auto_extended the
     * watchdog's successful extensions; attempts the acquisition attempts sent,
     * wakeups the waits a release ended ahead of their retry timer; per node,
     * timeouts are round trips that ran out of time and errors every other node
     * failure; voting is false while a node that restarted empty is out of the
     * quorum, and not_voting_why then says why ("restarted 12 s ago, votes in
     * 48 s"; "restart check: no INFO" where an ACL refuses INFO, else null).
     *
     * @return array{
     *     acquired: int,
     *     conflicts: int,
     *     quorum_failures: int,
     *     released: int,
     *     extended: int,
     *     attempts: int,
     *     wakeups: int,
     *     auto_extended: int,
     *     nodes: array<string, array{
     *         ok: int,
     *         errors: int,
     *         timeouts: int,
     *         last_error: string|null,
     *         latency_us: array{p50: int, p99: int, max: int},
     *         voting: bool,
     *         not_voting_why: string|null
     *     }>
     * } nodes is keyed by each node's name (see nodes()); a node in connect
     *     back-off counts an error per call and says so in last_error.
     */
    public function stats(): array {}

    /**
     * The pool's counters and histograms in the Prometheus text format 0.0.4
     * (`# HELP`/`# TYPE`, counters `*_total`, times in seconds): every process
     * that shares the table (the php-fpm master and its workers, or every
     * thread), or this process only with `redlock.metrics=0`
     * (PHP_INI_SYSTEM). Families: redlock_acquisitions_total{mode},
     * redlock_conflicts_total, redlock_quorum_failures_total,
     * redlock_lost_total, redlock_releases_total, redlock_extensions_total{by},
     * redlock_attempts_total, redlock_wakeups_total,
     * redlock_node_requests_total{node,result}, the histograms
     * redlock_node_latency_seconds{node}, redlock_wait_seconds and
     * redlock_hold_seconds, per resource prefix (the resource up to its first
     * ":") redlock_resource_acquisitions_total, _conflicts_total,
     * _releases_total, _lost_total and _hold_seconds_total{resource}, and the
     * gauges redlock_metrics_node_slots, redlock_metrics_resource_slots and
     * redlock_metrics_shared. Serve it from a /metrics route (docs/metrics.md).
     *
     * @return non-empty-string
     */
    public static function metrics(): string {}
}
}

namespace RedLock {

/**
 * A lock held (or once held) through RedLock::lock()/synchronized(), or one
 * acquired elsewhere and restored with RedLock::restore().
 *
 * It belongs to the process that acquired it: a forked child cannot release
 * it through the inherited object (release() returns false there).
 * Final, no dynamic properties, not serializable.
 */
final class Lock
{
    /** The resource as given to lock() (the first of lockAll()'s), without the prefix. */
    public readonly string $resource;

    /**
     * @var non-empty-string 40 lowercase hex characters from a CSPRNG, or
     *     the 'token' option / restore()'s token (16 to 128 bytes).
     */
    public readonly string $token;

    /**
     * @var int<0, 2147483647> ms, as last requested (lock() or extend());
     *     0 for a restored lock until an extend() succeeds.
     */
    public readonly int $ttl;

    /**
     * Fencing token, only with the 'fencing' option, else null: if a lock()
     * started after another fenced lock() returned, its fence is larger.
     * Kept by extend(). Pass it to the protected storage, which refuses
     * writes with a lower fence than the highest it has seen.
     * @var positive-int|null
     */
    public readonly ?int $fence;

    /** @var non-empty-list<non-empty-string> every resource of the lock (lockAll()), else [$resource] */
    public readonly array $resources;

    /** @var 'exclusive'|'shared'|'permit' */
    public readonly string $mode;

    /**
     * Token-checked delete on every node.
     *
     * Returns true when a quorum confirmed deletion of our token; false when
     * the lock was already gone, already released, or belongs to another
     * process (fork). isReleased() is true afterwards, whatever this returned.
     *
     * @throws LockLostException with 'throw_on_lost', instead of returning
     *     false because the lock was found gone.
     */
    public function release(): bool {}

    /**
     * Token-checked PEXPIRE on a quorum; resets validity and $ttl. On an
     * auto_extend lock the watchdog then extends by the new $ttl; once the
     * watchdog lost the lock, this returns false without asking the nodes.
     *
     * @param int<1, 2147483647> $ttl Milliseconds from now.
     *
     * @throws LockLostException with 'throw_on_lost', instead of returning
     *     false because the lock was found gone.
     * @throws \ValueError $ttl out of range.
     */
    public function extend(int $ttl): bool {}

    /** remaining() > 0 and not released. Never throws. */
    public function isValid(): bool {}

    /**
     * Milliseconds of validity left (0 once expired), on a monotonic clock;
     * with auto_extend, as of the watchdog's last successful extension (0
     * once an extension failed). Never throws.
     *
     * @return int<0, max>
     */
    public function remaining(): int {}

    /** True once release() was called, whatever it returned. Never throws. */
    public function isReleased(): bool {}

    /**
     * Asks the nodes (GET compared with our token): true when a quorum of
     * them hold OUR token right now. False in a forked child (the lock
     * belongs to the process that acquired it).
     *
     * @throws QuorumException fewer than a quorum of nodes answered.
     */
    public function isHeld(): bool {}
}

/** Base of every exception the extension throws (besides \ValueError/\TypeError). */
class Exception extends \RuntimeException
{
}

/** Fewer than a quorum of nodes answered; the message lists each failed node and why. */
final class QuorumException extends Exception
{
}

/** synchronized() could not acquire the lock (where lock() would return null). */
final class LockConflictException extends Exception
{
}

/** extend()/release() found the lock gone, when 'throw_on_lost' is set; or, with
 * 'on_lost' => 'throw', thrown in the holder's code the moment the lock is known lost. */
final class LockLostException extends Exception
{
}
}
