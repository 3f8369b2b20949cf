#!/usr/bin/env bash
# build.sh -- phpize + configure + make the extension into modules/redlock.so.
# --asan: build with AddressSanitizer + UBSan (for the sanitizer run of the .phpt suite).
# REDLOCK_CONFIGURE_ARGS: more ./configure arguments (e.g. --disable-redlock-tls).
set -euo pipefail
cd "$(dirname "$0")/.."
extra_cflags="-O2 -g"
extra_ldflags=""
if [ "${1:-}" = "--asan" ]; then
  extra_cflags="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
  extra_ldflags="-fsanitize=address,undefined"
fi
stamp="modules/.build-flags"
# a new source in config.m4 needs phpize + configure again, not just make
want="$extra_cflags ${REDLOCK_CONFIGURE_ARGS:-} $(sha1sum config.m4 | cut -c1-12)"
if [ -f Makefile ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  make -s -j2 >/dev/null
else
  [ -f Makefile ] && make -s distclean >/dev/null 2>&1 || true
  phpize >/dev/null
  # shellcheck disable=SC2086 # word splitting of the extra arguments is wanted
  CFLAGS="$extra_cflags" LDFLAGS="$extra_ldflags" ./configure -q --enable-redlock ${REDLOCK_CONFIGURE_ARGS:-} >/dev/null
  make -s -j2 >/dev/null
  echo "$want" > "$stamp"
fi
test -f modules/redlock.so
echo "built $(pwd)/modules/redlock.so"
