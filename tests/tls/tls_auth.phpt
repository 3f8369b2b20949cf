--TEST--
TLS: AUTH over TLS (ACL user and password, URI and array forms); a wrong password fails with the reason and never shows the password
--EXTENSIONS--
redlock
--SKIPIF--
<?php require __DIR__ . '/tls.inc'; rl_tls_skipif(); ?>
--FILE--
<?php
require __DIR__ . '/tls.inc';
rl_tls_require();
$res = rl_name('tls_auth');
$opt = rl_tls_opts() + ['retry_count' => 0, 'connect_timeout' => rl_tls_ms(1000), 'timeout' => rl_tls_ms(1000)];
$user = rl_tls_user();
$pass = rl_tls_password();

// URI form: rediss://user:password@host:port
$rl = new RedLock(array_map(fn($n) => "rediss://$user:$pass@$n", rl_tls_nodes()), $opt);
$l = $rl->lock($res, 10000);
echo "URI: ", $l ? rl_tls_count_value($res, $l->token) : 'no lock', "\n";
// the lock was taken as that user: CLIENT LIST of a node shows it
$r = rl_tls_redis(rl_tls_nodes()[0]);
$clients = (string) $r->cmd('CLIENT', 'LIST');
$r->close();
echo "connected as $user: ", str_contains($clients, "user=$user ") ? 'yes' : "no: $clients", "\n";
var_dump($l && $l->release());

// array form, database 3
$nodes = [];
foreach (rl_tls_nodes() as $n) {
    [$h, $p] = explode(':', $n);
    $nodes[] = ['host' => $h, 'port' => (int) $p, 'user' => $user, 'password' => $pass, 'database' => 3, 'tls' => true];
}
$l = (new RedLock($nodes, $opt))->lock($res, 10000);
$on3 = 0;
foreach (rl_tls_nodes() as $n) {
    $r = rl_tls_redis($n);
    $r->cmd('SELECT', 3);
    $on3 += $l && $r->cmd('GET', $res) === $l->token ? 1 : 0;
    $r->close();
}
echo "array form, database 3: $on3\n";
var_dump($l && $l->release());

// a wrong password: the node fails with the AUTH error; the password is never shown
$wrong = 'Wr0ng-tls-Pa55';
$rl = new RedLock(array_map(fn($n) => "rediss://$user:$wrong@$n", rl_tls_nodes()), $opt);
$m = rl_quorum_message(fn() => $rl->lock($res, 10000));
echo "wrong password: ", rl_contains($m, 'could not reach a quorum', 'WRONGPASS|invalid username-password|AUTH|auth'), "\n";
echo "password not in the message: ", str_contains($m, $wrong) || str_contains($m, $pass) ? "no: $m" : 'yes', "\n";
$dump = print_r($rl->nodes(), true) . var_export($rl->stats(), true);
ob_start();
var_dump($rl);
$dump .= ob_get_clean();
echo "password not in nodes(), stats(), var_dump: ", str_contains($dump, $wrong) ? 'no' : 'yes', "\n";
echo "keys left: ", rl_tls_count_keys($res), "\n";
echo "done\n";
?>
--EXPECT--
URI: 3
connected as rltls: yes
bool(true)
array form, database 3: 3
bool(true)
wrong password: ok
password not in the message: yes
password not in nodes(), stats(), var_dump: yes
keys left: 0
done
