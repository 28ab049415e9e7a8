#!/bin/sh
# Do the perf counters and the timeline sampler cost the workload anything?
# The no_load time of the same synthetic compile plain (`--timeline-hz 0`, no
# --perf) and observed (`--perf --timeline-hz HZ`), interleaved, with the
# difference's 95% CI (interleaved_cost.sh).
#
#   bench/observe_overhead.sh [SIZE [ROUNDS [HZ]]]
#     SIZE    --synthetic-size (default 40)
#     ROUNDS  pairs of runs (default 6)
#     HZ      the sampler's rate when observed (default 10, contest's own)
#   CONTEST=path/to/contest (default: build/contest next to this script)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
hz=${3:-10}
SIZE=${1:-40} ROUNDS=${2:-6} exec "$here/interleaved_cost.sh" \
    "plain" "--timeline-hz 0" "observed" "--perf --timeline-hz $hz"
