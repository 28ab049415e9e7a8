#!/bin/sh
# What does one setting cost the compile? Times the same synthetic compile
# with no load, interleaved: once with PLAIN_ARGS and once with OTHER_ARGS
# (contest run options, split on spaces), alternating which goes first,
# ROUNDS times; prints both means and the difference with its 95% CI, paired
# by round and Welch's (interleaved_cost.py). A paired CI that contains 0
# says: no cost measurable on this machine at this number of rounds. A run
# with latency probes also prints each probe's own CPU%.
#
#   bench/interleaved_cost.sh PLAIN_NAME PLAIN_ARGS OTHER_NAME OTHER_ARGS
#   SIZE=40 (--synthetic-size), ROUNDS=6 (pairs of runs)
#   OTHER_BESIDE="command": also runs this (sh -c, its own process group)
#     during each OTHER run, stopped after it: the cost of an outside tool,
#     e.g. OTHER_BESIDE="cyclictest -q -m --laptop -i 1000 --policy=other"
#   CONTEST=path/to/contest (default: build/contest next to this script)
# Used by observe_overhead.sh and latency_cost.sh.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
contest=${CONTEST:-$here/../build/contest}
size=${SIZE:-40}
rounds=${ROUNDS:-6}
[ $# -eq 4 ] || { echo "usage: interleaved_cost.sh PLAIN_NAME PLAIN_ARGS OTHER_NAME OTHER_ARGS" >&2; exit 2; }
plain_name=$1 plain_args=$2 other_name=$3 other_args=$4

[ -x "$contest" ] || { echo "interleaved_cost: no contest binary at $contest (make, or CONTEST=...)" >&2; exit 3; }
command -v python3 >/dev/null || { echo "interleaved_cost: python3 missing" >&2; exit 3; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/contest-bench.XXXXXX")
beside=
trap '[ -n "$beside" ] && kill -KILL "-$beside" 2>/dev/null; rm -rf "$scratch"' EXIT INT TERM

# One no_load run with the given options (unquoted on purpose: split on
# spaces); its wall time goes to $scratch/<kind>, and the figure printed to
# stdout is that time, with the probes' CPU% when it had any.
run_one() {
    kind=$1
    shift
    rm -rf "$scratch/results"
    beside=
    if [ "$kind" = other ] && [ -n "${OTHER_BESIDE:-}" ]; then
        setsid sh -c "exec $OTHER_BESIDE" >/dev/null 2>&1 &
        beside=$!
    fi
    # shellcheck disable=SC2068
    "$contest" run --quiet --workload synthetic --synthetic-size "$size" --no-drop-caches \
        --workdir "$scratch/work" --results "$scratch/results" -n 1 $@ no_load >/dev/null 2>&1
    if [ -n "$beside" ]; then
        kill -TERM "-$beside" 2>/dev/null || true
        wait "$beside" 2>/dev/null || true
    fi
    python3 - "$(find "$scratch/results" -name '*.json' | head -n 1)" "$scratch/$kind" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
with open(sys.argv[2], "a") as out:
    out.write(f'{run["wall_s"]}\n')
probes = run.get("latency") or {}
cpu = ", ".join(f'{name} {p["probe_cpu"]["cpu_pct"]:.2f}% CPU' for name, p in probes.items())
print(f'{run["wall_s"]:.3f} s' + (f" ({cpu})" if cpu else ""))
PY
}

echo "synthetic workload, $size translation units, no_load; $rounds rounds:" \
    "$plain_name [$plain_args] against $other_name [$other_args]" >&2
run_one warmup "$plain_args" >/dev/null  # generates the project and warms the caches
i=1
while [ "$i" -le "$rounds" ]; do
    if [ $((i % 2)) -eq 1 ]; then
        a=$(run_one plain "$plain_args")
        b=$(run_one other "$other_args")
    else
        b=$(run_one other "$other_args")
        a=$(run_one plain "$plain_args")
    fi
    echo "round $i of $rounds: $plain_name $a, $other_name $b" >&2
    i=$((i + 1))
done

python3 "$here/interleaved_cost.py" "$scratch/plain" "$plain_name" "$scratch/other" "$other_name"
