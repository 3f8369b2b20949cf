#!/usr/bin/env bash
# bench/deps.sh — what the benchmark needs beyond scripts/deps.sh (idempotent).
#   apt: gnuplot-nox (latency plot), valgrind (callgrind), composer, rsync, build tools
#   Composer: bench/composer.json -> bench/vendor (symfony/lock); on failure the
#   benchmark falls back to Debian's php-symfony-lock, installed here too.
set -u
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PKGS=(gnuplot-nox valgrind composer rsync make gcc pkg-config libhiredis-dev php-cli php-dev php-redis redis-server php-symfony-lock)
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null ||
        { echo "bench/deps.sh: apt-get install ${missing[*]} failed" >&2; exit 1; }
fi
if [ ! -f "$BENCH/vendor/autoload.php" ] || [ "$BENCH/composer.json" -nt "$BENCH/vendor/autoload.php" ]; then
    if ! (cd "$BENCH" && COMPOSER_ALLOW_SUPERUSER=1 timeout 300 composer update --no-interaction --no-progress -q); then
        echo "bench/deps.sh: composer could not install symfony/lock; the benchmark will use Debian's php-symfony-lock" >&2
    fi
fi
exit 0
