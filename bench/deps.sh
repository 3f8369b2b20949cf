#!/usr/bin/env bash
# bench/deps.sh — what the benchmark needs beyond scripts/deps.sh (idempotent).
#   apt: scripts/deps.sh (it installs what the test command's short benchmark runs too:
#   gnuplot-nox, valgrind, composer, rsync, the build tools, php-symfony-lock)
#   Composer: bench/composer.json -> bench/vendor (symfony/lock); on failure the
#   benchmark falls back to Debian's php-symfony-lock.
set -u
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bash "$BENCH/../scripts/deps.sh" || { echo "bench/deps.sh: scripts/deps.sh failed" >&2; exit 1; }
if [ ! -f "$BENCH/vendor/autoload.php" ] || [ "$BENCH/composer.json" -nt "$BENCH/vendor/autoload.php" ]; then
    if ! (cd "$BENCH" && COMPOSER_ALLOW_SUPERUSER=1 timeout 300 composer update --no-interaction --no-progress -q); then
        echo "bench/deps.sh: composer could not install symfony/lock; the benchmark will use Debian's php-symfony-lock" >&2
    fi
fi
exit 0
