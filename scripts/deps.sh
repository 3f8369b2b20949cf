#!/usr/bin/env bash
# deps.sh -- install every Debian package the build, the demo and the tests need (idempotent).
# php-dev ships phpize and gen_stub.php, php-parser the parser gen_stub.php runs on
# (scripts/gen-stub.sh). What the test command runs is installed here, the short benchmark
# included: rsync (bench/run.sh's private build, the raw row) and php-symfony-lock (the
# symfony row when bench/vendor is absent). bench/deps.sh adds Composer's symfony/lock.
# python3 drives redlock(1) on a pseudo-terminal (tests/harness/cli/jobctl.py).
# nftables and iproute2: tests/harness/netfault (network namespaces, silent partitions).
# debootstrap and dpkg-dev (apt-get source): the platform matrix
# (tests/harness/platforms/run.sh: a Debian 13 chroot, PHP 8.2 built ZTS from Debian's source package).
# prometheus ships promtool, which checks RedLock::metrics()'s
# output (tests/metrics/promtool.phpt); its server is stopped below, never used.
set -euo pipefail
pkgs=(
  php-dev php-cli php-pear php-parser php-redis php-fpm libfcgi-bin phpunit
  composer php-json-schema
  libhiredis-dev libssl-dev openssl pkg-config redis-server redis-tools
  build-essential clang-14 libclang-rt-14-dev valgrind gnuplot-nox
  man-db procps strace python3 rsync php-symfony-lock prometheus
  debootstrap dpkg-dev nftables iproute2
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian starts services on install; the tests start their own servers on free ports.
if command -v systemctl >/dev/null 2>&1; then systemctl stop redis-server php8.2-fpm prometheus >/dev/null 2>&1 || true; fi
# without systemd the package's init script may have started the Prometheus server
if [ -x /etc/init.d/prometheus ]; then /etc/init.d/prometheus stop >/dev/null 2>&1 || true; fi
exit 0
