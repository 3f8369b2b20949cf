#!/usr/bin/env bash
# packaging.sh -- composer.json for PIE (PIE's schema from ../shared, composer validate,
# config.m4/package.xml), the release check (scripts/checkrel.sh) and a pecl install of the package.
. "$(dirname "$0")/lib.sh"
need_so
nodes_up
if [ -f tests/harness/packaging/pie_composer.php ]; then
  php tests/harness/packaging/pie_composer.php >"$log_dir/pie-composer.log" 2>&1; rc=$?
  sed "s/^/    | /" "$log_dir/pie-composer.log"
  summary_count pie-composer "$log_dir/pie-composer.log" "$rc" "$(shared_skips 1000000)"
fi
step checkrel bash scripts/checkrel.sh
# (from a copy of the tree: it packs the whole tree, which other suites build in meanwhile)
if [ -f tests/harness/packaging/pecl_install.sh ]; then
  tree_copy "$log_dir/tree" && step pecl-install bash "$log_dir/tree/tests/harness/packaging/pecl_install.sh"
fi
suite_end
