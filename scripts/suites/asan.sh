#!/usr/bin/env bash
# asan.sh -- an ASan+UBSan build of the extension (in a copy of the tree) and the .phpt suite
# against it (USE_ZEND_ALLOC=0; the tests' php preloads the sanitizer runtime: scripts/asan-php.sh).
#   bash scripts/suites/asan.sh [run-tests.php args or tests...]   (default: tests/)
. "$(dirname "$0")/lib.sh"
tree=$log_dir/tree
tree_copy "$tree"
if step build-asan bash "$tree/scripts/build.sh" --asan; then
  REDLOCK_ASAN_SHIM_DIR="$tree" TEST_PHP_EXECUTABLE="$tree/scripts/asan-php.sh" \
    run_phpt_sharded phpt-asan scripts/run-phpt.sh "$tree/modules/redlock.so" "$phpt_shards" "$(sanitizer_skips)" -- "$@"
fi
suite_end
