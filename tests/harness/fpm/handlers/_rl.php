<?php
// Shared by the handlers: build a RedLock from the FastCGI params.
//   RL_NODES  "h:p,h:p,..."      RL_OPTS  JSON constructor options
//   RL_INI    JSON ini_set()s done before the object is built
function rl_param(string $k, ?string $def = null): ?string
{
    return isset($_SERVER[$k]) && $_SERVER[$k] !== '' ? (string)$_SERVER[$k] : $def;
}

function rl_make(?array $opts = null): RedLock
{
    foreach (json_decode(rl_param('RL_INI', '{}'), true) as $k => $v) {
        ini_set($k, (string)$v);
    }
    $opts ??= json_decode(rl_param('RL_OPTS', '{}'), true);
    // Generous timeouts: these tests are about pooling and request end, not
    // about slow nodes, and must not flake when the machine is busy.
    $opts += ['retry_count' => 0, 'timeout' => 1000, 'connect_timeout' => 1000];
    return new RedLock(explode(',', rl_param('RL_NODES')), $opts);
}

function rl_result(array $r): void
{
    echo "RESULT ", json_encode($r + ['pid' => getmypid()]), "\n";
}
