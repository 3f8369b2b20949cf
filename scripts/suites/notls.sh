#!/usr/bin/env bash
# notls.sh -- a build without TLS (--disable-redlock-tls, in a copy of the tree): TLS nodes refused
# with a ValueError (tests/tls; every TLS test but tls_build.phpt skips there: those skips are expected).
. "$(dirname "$0")/lib.sh"
tree=$log_dir/tree
tree_copy "$tree"
if REDLOCK_CONFIGURE_ARGS=--disable-redlock-tls step build-notls bash "$tree/scripts/build.sh"; then
  nodes_up
  run_phpt phpt-notls scripts/run-phpt.sh "$tree/modules/redlock.so" "$(grep -l rl_tls_skipif tests/tls/*.phpt | wc -l)" -- tests/tls/
fi
suite_end
