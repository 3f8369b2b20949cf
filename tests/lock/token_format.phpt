--TEST--
Lock::$token: 40 lowercase hex chars, unique per acquisition, stored as the key's value
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/../skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../config.inc';
$rl = rl_new(['retry_count' => 0]);
$base = rl_name('token_format');
$tokens = [];
$bad = 0;
for ($i = 0; $i < 20; $i++) {
    $res = "$base:$i";
    $l = $rl->lock($res, 5000);
    if (!preg_match('/^[0-9a-f]{40}$/D', $l->token)) {
        $bad++;
        echo "bad token: ", var_export($l->token, true), "\n";
    }
    if (rl_count_value($res, $l->token) !== 5) {
        echo "token not stored on every node for $i\n";
    }
    $tokens[] = $l->token;
    if (!$l->release()) {
        echo "release failed for $i\n";
    }
}
echo "bad: $bad, unique: ", count(array_unique($tokens)), "\n";
// the same resource locked twice in a row gets a new token
$a = $rl->lock($base, 5000); $ta = $a->token; $a->release();
$b = $rl->lock($base, 5000); $tb = $b->token; $b->release();
var_dump($ta !== $tb);
// not a trivially low-entropy token (all 20 tokens share no 8-char prefix)
echo "distinct 8-char prefixes: ", count(array_unique(array_map(fn($t) => substr($t, 0, 8), $tokens))), "\n";
?>
--EXPECT--
bad: 0, unique: 20
bool(true)
distinct 8-char prefixes: 20
