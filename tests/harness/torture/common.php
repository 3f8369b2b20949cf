<?php
// common.php -- the parts shared by the torture workers torture.php and fenced.php (required
// by them, not run by itself).
//
// The requiring script defines TAG (the prefix of its messages) and AUX_TIMEOUT (seconds,
// connect and I/O timeout towards the AUX node). Provides:
//   aux()                     the AUX node (REDLOCK_TEST_AUX), connected once, with the small
//                             RESP client of tests/config.inc (no php-redis needed); exits 2
//                             when REDLOCK_TEST_AUX is not set
//   write_json(OUT, DATA)     writes DATA as JSON to OUT, atomically (through OUT.tmp)
//   read_reports(DIR, PROBS)  the workers' JSON reports DIR/worker-*.json and the sums of
//                             their integer fields; an unreadable one is added to PROBS
//   exit_codes(DIR)           the workers' exit codes the driver wrote to DIR/exit-codes

declare(strict_types=1);

require_once dirname(__DIR__, 2) . '/config.inc';

function aux(): RlRedis
{
    static $r = null;
    if ($r === null) {
        $addr = rl_aux();
        if ($addr === '') {
            fwrite(STDERR, TAG . ": REDLOCK_TEST_AUX is not set\n");
            exit(2);
        }
        $r = new RlRedis($addr, AUX_TIMEOUT);
    }
    return $r;
}

function write_json(string $out, array $data, int $flags = 0): void
{
    file_put_contents($out . '.tmp', json_encode($data, $flags | JSON_INVALID_UTF8_SUBSTITUTE));
    rename($out . '.tmp', $out);
}

/** @return array{0: list<array>, 1: array<string, int>} [reports, sums of their integer fields] */
function read_reports(string $dir, array &$problems): array
{
    $reports = [];
    $sum = [];
    foreach (glob("$dir/worker-*.json") as $f) {
        $w = json_decode((string) file_get_contents($f), true);
        if (!is_array($w)) {
            $problems[] = "unreadable report $f";
            continue;
        }
        $reports[] = $w;
        foreach ($w as $k => $v) {
            if (is_int($v)) {
                $sum[$k] = ($sum[$k] ?? 0) + $v;
            }
        }
    }
    return [$reports, $sum];
}

/** @return array<int, int> worker id => exit code, from the driver's "id rc" lines */
function exit_codes(string $dir): array
{
    $rcs = [];
    foreach (@file("$dir/exit-codes", FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) ?: [] as $line) {
        [$id, $rc] = array_map('intval', explode(' ', $line));
        $rcs[$id] = $rc;
    }
    return $rcs;
}
