#!/usr/bin/env bash
# check-sources.sh -- the source list is written in three places (redlock_core/Makefile
# for the core's own builds, config.m4 and config.w32 for the extension); this check
# fails unless they name the same files, and every tracked redlock*.c / redlock_core/rl_*.c /
# redlock_core/{net,lock}/*.c is built, under a file name unique across the folders (config.w32
# names objects by file name alone); and unless struct rl_conn stays private to net/. Run by
# scripts/test.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
fail=0
norm() { tr ' ' '\n' | sed '/^$/d' | sort -u; }

# SRCS as make expands it (it names the folders' lists: $(LOCK_SRCS), ...)
core_mk=$(make -s -C redlock_core --no-print-directory -f Makefile -f - print-srcs <<<'print-srcs: ; @echo $(SRCS)' 2>/dev/null | norm)
m4_all=$(grep -oE '\[redlock[^]]*\.c\]' config.m4 | tr -d '[]' | norm)
core_m4=$(echo "$m4_all" | sed -n 's|^redlock_core/||p' | norm)
glue_m4=$(echo "$m4_all" | grep -v '^redlock_core/' | norm)
# config.w32: one ADD_SOURCES per folder, "/redlock_core[/DIR]", "a.c b.c": DIR/a.c DIR/b.c
core_w32=$(grep -oE 'ADD_SOURCES\([^,]*"/redlock_core(/[a-z]+)?"[^,]*, *"[^"]*"' config.w32 |
  sed 's|.*"/redlock_core/\{0,1\}\([a-z]*\)"[^,]*, *"\([^"]*\)"$|\1:\2|' |
  while IFS=: read -r dir files; do for f in $files; do echo "${dir:+$dir/}$f"; done; done | norm)
glue_w32=$(grep -oE 'EXTENSION\("redlock", *"[^"]*"' config.w32 | sed 's/.*, *"\([^"]*\)"$/\1/' | norm)
core_git=$(git ls-files ':(glob)redlock_core/rl_*.c' ':(glob)redlock_core/net/*.c' ':(glob)redlock_core/lock/*.c' |
  sed 's|^redlock_core/||' | norm)
glue_git=$(git ls-files ':(glob)redlock*.c' | norm)

same() { # what a b
  if [ "$2" != "$3" ]; then
    echo "FAIL sources: $1 differ:"; diff <(echo "$2") <(echo "$3") | sed 's/^/    /'; fail=1
  else
    echo "ok   sources: $1 ($(echo "$2" | wc -l) files)"
  fi
}
same "core: redlock_core/Makefile SRCS vs config.m4" "$core_mk" "$core_m4"
same "core: redlock_core/Makefile SRCS vs config.w32" "$core_mk" "$core_w32"
same "core: redlock_core/Makefile SRCS vs git (redlock_core/rl_*.c, net/*.c, lock/*.c)" "$core_mk" "$core_git"
dup=$(echo "$core_git" | sed 's|.*/||' | sort | uniq -d)
if [ -n "$dup" ]; then
  echo "FAIL sources: file names in more than one core folder (config.w32 names objects by file name): $(echo $dup)"; fail=1
else
  echo "ok   sources: core file names unique across folders"
fi
same "glue: config.m4 vs config.w32" "$glue_m4" "$glue_w32"
same "glue: config.m4 vs git (redlock*.c)" "$glue_m4" "$glue_git"
# struct rl_conn is net/'s (issue 21, issue 38): only the connection's own files there, and
# the core's white-box tests and fuzzers, include the header that defines it
others=$(git grep -l '#include "rl_conn_struct.h"' -- '*.c' '*.h' | grep -vE '^redlock_core/(net/|tests/|fuzz/)')
if [ -n "$others" ]; then
  echo "FAIL sources: struct rl_conn is net/'s, but these include rl_conn_struct.h: $(echo $others)"; fail=1
else
  echo "ok   sources: struct rl_conn is defined for net/ (and the white-box tests) only"
fi
exit $fail
