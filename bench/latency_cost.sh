#!/bin/sh
# What do the latency probes cost the compile? The no_load time of the same
# synthetic compile without and with `--latency PROBES`, interleaved, with the
# difference's 95% CI (interleaved_cost.sh); each probed run also prints the
# probes' own CPU%, which the compile shares.
#
#   bench/latency_cost.sh [PROBES [SIZE [ROUNDS]]]
#     PROBES  --latency's list (default cyclic, contest's default)
#     SIZE    --synthetic-size (default 40)
#     ROUNDS  pairs of runs (default 6)
#   CONTEST=path/to/contest (default: build/contest next to this script)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
probes=${1:-cyclic}
SIZE=${2:-40} ROUNDS=${3:-6} exec "$here/interleaved_cost.sh" \
    plain "" "--latency $probes" "--latency $probes"
