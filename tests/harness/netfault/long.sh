#!/usr/bin/env bash
# long.sh -- the long form of tests/harness/netfault (not in CI): 30 s partitions in each
# scenario (the old connection's retransmission gap is then 25.6 s), a 5 min nemesis run.
#   NF_RESTARTS=0 bash tests/harness/netfault/long.sh   leaves the empty restarts out of the nemesis run
exec bash "$(dirname "$0")/run.sh" --long "$@"
