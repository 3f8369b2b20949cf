#!/usr/bin/env bash
# asan-php.sh -- php for an ASan+UBSan build of the extension (scripts/build.sh --asan).
#
#   TEST_PHP_EXECUTABLE=$PWD/scripts/asan-php.sh bash scripts/run-phpt.sh /path/to/asan/redlock.so
#
# php itself is not instrumented: this preloads the sanitizer runtime (for the
# tests' php only: run-tests' own php loads opcache, which ASan refuses).
# PHP dlopen()s extensions with RTLD_DEEPBIND, which ASan refuses: the shim
# scripts/asan_nodeepbind.c strips it (built on first use, cached per user).
# Leaks of php's own exit path are not ours to report: detect_leaks=0.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shim_dir=${REDLOCK_ASAN_SHIM_DIR:-${TMPDIR:-/tmp}/redlock-asan-shim.$(id -u)}
shim="$shim_dir/nodeepbind.so"
if [ ! -f "$shim" ] || [ "$here/asan_nodeepbind.c" -nt "$shim" ]; then
  mkdir -p "$shim_dir"
  tmp=$(mktemp "$shim_dir/nodeepbind.XXXXXX")
  cc -shared -fPIC -O2 -o "$tmp" "$here/asan_nodeepbind.c" -ldl
  mv -f "$tmp" "$shim"
fi
LD_PRELOAD="$shim $(gcc -print-file-name=libasan.so)" \
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:verify_asan_link_order=0 USE_ZEND_ALLOC=0 \
exec "$(command -v php)" "$@"
