#!/usr/bin/env bash
# static.sh -- checks of the sources that need no node: redlock_arginfo.h is what gen_stub.php makes
# of redlock.stub.php; the core's source list, config.m4 and config.w32 agree; and, where the scripts
# exist, the Lua scripts' generated C (scripts/gen-lua.sh --check) and the docs (scripts/check-docs.sh).
. "$(dirname "$0")/lib.sh"
step arginfo-regen bash scripts/gen-stub.sh --check
step sources-agree bash scripts/check-sources.sh
[ -f scripts/gen-lua.sh ] && step lua-regen bash scripts/gen-lua.sh --check
[ -f scripts/check-docs.sh ] && step check-docs bash scripts/check-docs.sh
suite_end
