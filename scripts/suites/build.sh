#!/usr/bin/env bash
# build.sh -- the extension's build (-Wall -Wextra, warnings are errors in the core), no compiler
# warning in our own sources (a fresh clone compiles everything), and TLS in this build.
# Last line "build: N passed, N failed, N skipped" (scripts/suites/lib.sh).
. "$(dirname "$0")/lib.sh"
if ! step build-extension bash scripts/build.sh; then suite_end; exit 1; fi
if grep -E "(redlock|rl_[a-z]+)\.c:[0-9]+:[0-9]+: warning" "$log_dir/build-extension.log" >"$log_dir/warnings.log"; then
  sed "s/^/    | /" "$log_dir/warnings.log"; count compiler-warnings 0 1 0
else
  count compiler-warnings 1 0 0
fi
# TLS must be in this build (configure only warns when OpenSSL is missing): without it the
# TLS tests would skip and tls_build.phpt would accept "no". The no-TLS build is notls.sh.
has_tls() { # so: phpinfo's row "TLS => yes (OpenSSL ...)"
  php -n -d "extension=$1" -r 'ob_start(); phpinfo(INFO_MODULES); $i = ob_get_clean();
    preg_match("/^TLS => (.*)$/m", $i, $m); echo "phpinfo: TLS => ", $m[1] ?? "(no row)", "\n";
    exit(str_starts_with($m[1] ?? "", "yes") ? 0 : 1);'
}
step build-has-tls has_tls "$so" || echo "    | the main build has no TLS: install libssl-dev (scripts/deps.sh) and rebuild"
suite_end
