--TEST--
Restore: a restored lock's validity is unknown (remaining() 0, isValid() false, $ttl 0, $fence null) until an extend() succeeds
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$res = rl_name('restore_validity');
$orig = $rl->lock($res, 30000, ['fencing' => true, 'auto_release' => false]);
echo "original: fence ", is_int($orig->fence) && $orig->fence > 0 ? 'positive int' : var_export($orig->fence, true),
    ", valid ", var_export($orig->isValid(), true), "\n";

$l = rl_new()->restore($res, $orig->token);
echo "restored: resource same ", var_export($l->resource === $res, true), ", token same ", var_export($l->token === $orig->token, true),
    ", ttl ", $l->ttl, ", fence ", var_export($l->fence, true), "\n";
echo "  remaining ", $l->remaining(), ", isValid ", var_export($l->isValid(), true), ", isReleased ", var_export($l->isReleased(), true), "\n";
echo "  isHeld ", var_export($l->isHeld(), true), " (asking does not make it valid: remaining ", $l->remaining(), ")\n";

// a failed extend leaves it unknown: a foreign token took the key meanwhile
rl_set_on([1, 2, 3, 4, 5], $res, 'foreign-owner-token-0000', 30000);
echo "extend while another owner holds it: ", var_export($l->extend(10000), true), ", remaining ", $l->remaining(),
    ", ttl ", $l->ttl, ", isHeld ", var_export($l->isHeld(), true), "\n";
rl_set_on([1, 2, 3, 4, 5], $res, $orig->token, 30000);

// a successful extend gives it a validity, $ttl, and nothing else changes
$t0 = hrtime(true);
echo "extend: ", var_export($l->extend(10000), true), "\n";
$rem = $l->remaining();
echo "  isValid ", var_export($l->isValid(), true), ", remaining in (10000 - elapsed - drift, 10000]: ",
    ($rem <= 10000 && $rem >= 10000 - 100 - 2 - rl_ms($t0) - 5) ? 'yes' : "no ($rem)", ", ttl ", $l->ttl, ", fence ", var_export($l->fence, true), "\n";
$p = rl_pttls($res);
echo "  PTTL on the nodes <= 10000: ", count(array_filter($p, fn($v) => $v > 0 && $v <= 10000)), "\n";

// extend() of a restored lock is token-checked like any other
$wrong = $rl->restore($res, 'not-the-owner-token-0000');
echo "wrong token: extend ", var_export($wrong->extend(5000), true), ", release ", var_export($wrong->release(), true),
    ", isHeld ", var_export($wrong->isHeld(), true), ", remaining ", $wrong->remaining(), ", keys ", rl_count_value($res, $orig->token), "\n";

// throw_on_lost comes from the RedLock it was restored through
$strict = rl_new(['throw_on_lost' => true])->restore($res, 'not-the-owner-token-0000');
rl_expect('throw_on_lost extend', fn() => $strict->extend(5000), 'RedLock\LockLostException', 'gone');

echo "release: ", var_export($l->release(), true), ", isValid ", var_export($l->isValid(), true), ", remaining ", $l->remaining(), ", keys ", rl_count_keys($res), "\n";
echo "original release: ", var_export($orig->release(), true), "\n";
rl_del($res);
?>
--EXPECT--
original: fence positive int, valid true
restored: resource same true, token same true, ttl 0, fence NULL
  remaining 0, isValid false, isReleased false
  isHeld true (asking does not make it valid: remaining 0)
extend while another owner holds it: false, remaining 0, ttl 0, isHeld false
extend: true
  isValid true, remaining in (10000 - elapsed - drift, 10000]: yes, ttl 10000, fence NULL
  PTTL on the nodes <= 10000: 5
wrong token: extend false, release false, isHeld false, remaining 0, keys 5
throw_on_lost extend: RedLock\LockLostException ok
release: true, isValid false, remaining 0, keys 0
original release: false
