#!/usr/bin/env bash
# Do io_load, read_load and mem_load really slow the workload down on this
# machine? Runs `contest run` on the synthetic workload under no_load,
# io_load, read_load and mem_load and prints contest's table: each load's
# Ratio (its Time over no_load's) should be above 1.
#
#   bench/load_ratios.sh
#   CONTEST=path/to/contest (default: build/contest next to this script)
#   RUNS=N            runs under each load (default 1)
#   SIZE=N            --synthetic-size, translation units (default 100)
#   LOAD_SIZE_MIB=M   --load-size-mib for the three loads (default: none, RAM-sized
#                     as contest sizes them; still capped to the free disk and memory)
#   WORKDIR=D         scratch space (default: a folder under contest's own workdir)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CONTEST=${CONTEST:-$here/../build/contest}
RUNS=${RUNS:-1}
SIZE=${SIZE:-100}
[ -x "$CONTEST" ] || { echo "load_ratios: no contest binary at $CONTEST (make, or CONTEST=...)" >&2; exit 3; }

base=${WORKDIR:-${XDG_CACHE_HOME:-$HOME/.cache}/contest}
mkdir -p "$base"
scratch=$(mktemp -d "$base/load-ratios.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

size_args=()
[ -n "${LOAD_SIZE_MIB:-}" ] && size_args=(--load-size-mib "$LOAD_SIZE_MIB")

"$CONTEST" run --workload synthetic --synthetic-size "$SIZE" --runs "$RUNS" \
    --label "load-ratios" --workdir "$scratch/work" --results "$scratch/results" \
    "${size_args[@]}" no_load io_load read_load mem_load
