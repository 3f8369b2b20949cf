#!/usr/bin/env bash
# fuzz.sh -- the core's fuzz targets, short and bounded (make -C redlock_core fuzz-short).
. "$(dirname "$0")/lib.sh"
step fuzz-short make -s -C redlock_core fuzz-short
suite_end
