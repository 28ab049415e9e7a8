#!/bin/sh
# Do the perf counters and the timeline sampler cost the workload anything?
# Times the same synthetic compile with no load, interleaved: once plain
# (`--timeline-hz 0`, no --perf) and once observed (`--perf --timeline-hz
# HZ`), alternating which goes first, ROUNDS times; prints both means, the
# difference and its 95% CI (Welch). A CI that contains 0 says: no cost
# measurable on this machine at this number of rounds.
#
#   bench/observe_overhead.sh [SIZE [ROUNDS [HZ]]]
#     SIZE    --synthetic-size (default 40)
#     ROUNDS  pairs of runs (default 6)
#     HZ      the sampler's rate when observed (default 10, contest's own)
#   CONTEST=path/to/contest (default: build/contest next to this script)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
contest=${CONTEST:-$here/../build/contest}
size=${1:-40}
rounds=${2:-6}
hz=${3:-10}

[ -x "$contest" ] || { echo "observe_overhead: no contest binary at $contest (make, or CONTEST=...)" >&2; exit 3; }
command -v python3 >/dev/null || { echo "observe_overhead: python3 missing" >&2; exit 3; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/contest-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

# One no_load run; its wall time goes to $scratch/<kind>.
run_one() {
    kind=$1
    shift
    rm -rf "$scratch/results"
    "$contest" run --quiet --workload synthetic --synthetic-size "$size" --no-drop-caches \
        --workdir "$scratch/work" --results "$scratch/results" -n 1 "$@" no_load >/dev/null 2>&1
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["wall_s"])' \
        "$(find "$scratch/results" -name '*.json' | head -n 1)" >>"$scratch/$kind"
}

echo "synthetic workload, $size translation units, no_load; $rounds rounds; sampler at $hz Hz" >&2
run_one warmup --timeline-hz 0  # generates the project and warms the caches
i=1
while [ "$i" -le "$rounds" ]; do
    if [ $((i % 2)) -eq 1 ]; then
        run_one plain --timeline-hz 0
        run_one observed --perf --timeline-hz "$hz"
    else
        run_one observed --perf --timeline-hz "$hz"
        run_one plain --timeline-hz 0
    fi
    echo "round $i of $rounds: plain $(tail -n 1 "$scratch/plain") s, observed $(tail -n 1 "$scratch/observed") s" >&2
    i=$((i + 1))
done

python3 - "$scratch/plain" "$scratch/observed" <<'PY'
import math, sys
from statistics import mean, stdev
a = [float(x) for x in open(sys.argv[1])]
b = [float(x) for x in open(sys.argv[2])]
ma, mb = mean(a), mean(b)
va, vb = stdev(a) ** 2 / len(a), stdev(b) ** 2 / len(b)
se = math.sqrt(va + vb)
df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1)) if se > 0 else 1
# Student t's 97.5% quantile (Cornish-Fisher, good to 3 digits for df >= 2).
z = 1.959964
t = z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
d = mb - ma
print(f"plain    (--timeline-hz 0):        mean {ma:.3f} s over {len(a)} runs (sd {stdev(a):.3f})")
print(f"observed (--perf, sampler on):     mean {mb:.3f} s over {len(b)} runs (sd {stdev(b):.3f})")
print(f"difference observed - plain:       {d:+.3f} s ({d / ma * 100:+.2f}%), "
      f"95% CI [{d - t * se:+.3f}, {d + t * se:+.3f}] s")
print("within noise" if d - t * se <= 0 <= d + t * se else "outside noise: a measurable cost")
PY
