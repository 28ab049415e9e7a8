#!/bin/sh
# Can the exec probe's figures be trusted? Times the same command's start
# two ways on the same machine, one after the other: contest's exec probe
# (`contest latency --probe exec --exec-cmd CMD`: fork to exit, five starts
# a second) and hyperfine (`hyperfine -N`: no shell, back to back), or
# `perf stat -r` when hyperfine is missing. Prints mean and median of each
# and their difference; the goal is agreement within 10% on an idle machine.
#
#   bench/exec_vs_hyperfine.sh [SECONDS [CMD...]]
#     SECONDS  the probe's window per command (default 20: about 100 starts)
#     CMD      commands to time, one argument each (default: /bin/true and
#              "python3 -c pass")
#   CONTEST=path/to/contest (default: build/contest next to this script)
#   ROUNDS=N repeats each pair N times, alternating which goes first (default 2)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
contest=${CONTEST:-$here/../build/contest}
seconds=${1:-20}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- /bin/true "python3 -c pass"
rounds=${ROUNDS:-2}

[ -x "$contest" ] || { echo "exec_vs_hyperfine: no contest binary at $contest (make, or CONTEST=...)" >&2; exit 3; }
command -v python3 >/dev/null || { echo "exec_vs_hyperfine: python3 missing" >&2; exit 3; }
if command -v hyperfine >/dev/null; then
    reference=hyperfine
elif command -v perf >/dev/null; then
    reference="perf stat"
else
    echo "exec_vs_hyperfine: neither hyperfine nor perf: install the Debian package hyperfine (make deps-bench)" >&2
    exit 3
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/contest-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

# contest's exec probe over $seconds: "mean_ns median_ns starts".
probe() {
    "$contest" latency --probe exec --exec-cmd "$1" --duration "$seconds" --format json \
        >"$scratch/probe.json"
    python3 - "$scratch/probe.json" <<'PY'
import json, sys
lat = json.load(open(sys.argv[1]))["latency"]
print(lat["mean_ns"], lat["percentiles_ns"]["50.00"], lat["samples"])
PY
}

# The reference, the same number of starts: "mean_ns median_ns starts".
reference() {
    if [ "$reference" = hyperfine ]; then
        hyperfine -N --style none --warmup 3 --runs "$2" --export-json "$scratch/hf.json" "$1" \
            >/dev/null 2>&1
        python3 - "$scratch/hf.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(r["mean"] * 1e9, r["median"] * 1e9, len(r["times"]))
PY
    else
        # perf stat gives the mean of its runs only: it stands for the median too.
        # shellcheck disable=SC2086  # the command's words are its argv
        perf stat -r "$2" $1 2>"$scratch/perf.txt" >/dev/null
        python3 - "$scratch/perf.txt" "$2" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
s = float(re.search(r"([0-9.]+) \+- [0-9.]+ seconds time elapsed", text).group(1))
print(s * 1e9, s * 1e9, sys.argv[2])
PY
    fi
}

: >"$scratch/pairs"
for cmd in "$@"; do
    r=1
    while [ "$r" -le "$rounds" ]; do
        if [ $((r % 2)) -eq 1 ]; then
            p=$(probe "$cmd")
            n=$(echo "$p" | cut -d' ' -f3)
            h=$(reference "$cmd" "$n")
        else
            h=$(reference "$cmd" $((seconds * 5)))
            p=$(probe "$cmd")
        fi
        echo "$cmd|$p|$h" >>"$scratch/pairs"
        r=$((r + 1))
    done
done

python3 - "$scratch/pairs" "$reference" <<'PY'
import sys
ref = sys.argv[2]
print(f"{'command':<20} {'round':>5} {'contest mean':>13} {'median':>9} {ref + ' mean':>16} {'median':>9} {'mean diff':>9} {'median diff':>11}")
worst = 0.0
rounds = {}
for line in open(sys.argv[1]):
    cmd, p, h = line.rstrip("\n").split("|")
    pm, pmed, pn = (float(x) for x in p.split())
    hm, hmed, hn = (float(x) for x in h.split())
    k = rounds[cmd] = rounds.get(cmd, 0) + 1
    dm, dmed = 100 * (pm / hm - 1), 100 * (pmed / hmed - 1)
    worst = max(worst, abs(dmed))
    print(f"{cmd:<20} {k:>5} {pm/1e3:>10.1f} us {pmed/1e3:>6.1f} us {hm/1e3:>13.1f} us {hmed/1e3:>6.1f} us {dm:>+8.1f}% {dmed:>+10.1f}%")
print(f"\nstarts per side: the probe's window (5 a second); the reference as many, back to back")
print(f"largest median difference: {worst:.1f}% ({'within' if worst <= 10 else 'beyond'} the 10% goal)")
PY
