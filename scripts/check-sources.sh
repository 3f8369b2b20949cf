#!/usr/bin/env bash
# check-sources.sh -- the source list is written in three places (redlock_core/Makefile
# for the core's own builds, config.m4 and config.w32 for the extension); this check
# fails unless they name the same files, and every tracked redlock*.c / redlock_core/rl_*.c /
# redlock_core/lock/*.c / redlock_core/net/*.c is built; and unless struct rl_conn stays
# private to rl_conn.c. Run by scripts/test.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
fail=0
norm() { tr ' ' '\n' | sed '/^$/d' | sort -u; }

# SRCS as make expands it (it names the folders' lists: $(LOCK_SRCS), ...)
core_mk=$(make -s -C redlock_core --no-print-directory -f Makefile -f - print-srcs <<<'print-srcs: ; @echo $(SRCS)' 2>/dev/null | norm)
m4_all=$(grep -oE '\[redlock[^]]*\.c\]' config.m4 | tr -d '[]' | norm)
core_m4=$(echo "$m4_all" | sed -n 's|^redlock_core/||p' | norm)
glue_m4=$(echo "$m4_all" | grep -v '^redlock_core/' | norm)
# (one ADD_SOURCES a folder: redlock_core, redlock_core/lock, redlock_core/net; each file
# named from redlock_core/)
core_w32=$(grep -oE 'ADD_SOURCES\([^,]*/redlock_core(/[a-z]+)?", *"[^"]*"' config.w32 |
  sed 's|.*/redlock_core/*\([a-z]*\)", *"\([^"]*\)"$|\1:\2|' |
  while IFS=: read -r dir files; do for f in $files; do echo "${dir:+$dir/}$f"; done; done | norm)
glue_w32=$(grep -oE 'EXTENSION\("redlock", *"[^"]*"' config.w32 | sed 's/.*, *"\([^"]*\)"$/\1/' | norm)
core_git=$(git ls-files ':(glob)redlock_core/rl_*.c' ':(glob)redlock_core/lock/*.c' ':(glob)redlock_core/net/*.c' | sed 's|^redlock_core/||' | norm)
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
same "core: redlock_core/Makefile SRCS vs git (redlock_core/rl_*.c, lock/*.c, net/*.c)" "$core_mk" "$core_git"
same "glue: config.m4 vs config.w32" "$glue_m4" "$glue_w32"
same "glue: config.m4 vs git (redlock*.c)" "$glue_m4" "$glue_git"
# struct rl_conn is rl_conn.c's (issue 21): only it, and the core's white-box tests and
# fuzzers, include the header that defines it
others=$(git grep -l '#include "rl_conn_struct.h"' -- '*.c' '*.h' | grep -vE '^redlock_core/(rl_conn\.c|tests/|fuzz/)')
if [ -n "$others" ]; then
  echo "FAIL sources: struct rl_conn is rl_conn.c's, but these include rl_conn_struct.h: $(echo $others)"; fail=1
else
  echo "ok   sources: struct rl_conn is defined for rl_conn.c (and the white-box tests) only"
fi
exit $fail
