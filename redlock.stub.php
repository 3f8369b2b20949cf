<?php

/** @generate-class-entries */

namespace {
/**
 * @strict-properties
 * @not-serializable
 */
final class RedLock
{
    public function __construct(array $nodes, array $options = []) {}

    public function lock(string $resource, int $ttl, array $options = []): ?RedLock\Lock {}

    public function synchronized(string $resource, int $ttl, callable $fn, array $options = []): mixed {}

    public function isLocked(string $resource): bool {}

    public function restore(string $resource, string $token, array $options = []): RedLock\Lock {}

    public function forceRelease(string $resource): bool {}

    public function lockAll(array $resources, int $ttl, array $options = []): ?RedLock\Lock {}

    public function semaphore(string $resource, int $limit, int $ttl, array $options = []): ?RedLock\Lock {}

    public static function releaseAll(): int {}

    public function quorum(): int {}

    public function nodes(): array {}

    public function stats(): array {}

    public static function metrics(): string {}
}
}

namespace RedLock {

/**
 * @strict-properties
 * @not-serializable
 */
final class Lock
{
    public readonly string $resource;
    public readonly string $token;
    public readonly int $ttl;
    public readonly ?int $fence;
    public readonly array $resources;
    public readonly string $mode;

    public function release(): bool {}

    public function extend(int $ttl): bool {}

    public function isValid(): bool {}

    public function remaining(): int {}

    public function isReleased(): bool {}

    public function isHeld(): bool {}
}

class Exception extends \RuntimeException
{
}

final class QuorumException extends Exception
{
}

final class LockConflictException extends Exception
{
}

final class LockLostException extends Exception
{
}
}
