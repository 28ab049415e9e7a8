#!/bin/sh
# Can the exec probe's figures be trusted? Times the same command's start
# on the same machine, one after the other: contest's exec probe (`contest
# latency --probe exec --exec-cmd CMD`: spawn to exit, five starts a second),
# hyperfine (`hyperfine -N`: no shell; it starts with posix_spawn, a vfork,
# as the probe does) spaced at the probe's pace (a 200 ms sleep before each
# start: the reference the goal is for) and back to back, and `perf stat -r`
# (back to back, fork and exec; its mean only), each where installed. Prints
# mean and median of each, the probe's difference to each and the load
# average before each round; the goal is agreement within 10% with the
# spaced reference on an idle machine.
#
# Both clocks run from the request to start to the reap. hyperfine's start
# is Rust's Command::spawn, glibc's posix_spawn: it also opens /dev/null
# three times, and its child, sharing the starter's memory, puts every
# signal's handler back to the default (about 126 rt_sigaction) before its
# exec; the probe's child resets only the signals its starter ignores. On a
# VM where a system call costs a microsecond, that is 0.3-0.5 ms more in
# hyperfine's figure; bench/exec_start_parts.c times the parts
# (docs/latency.md).
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
references=
command -v hyperfine >/dev/null && references="spaced hyperfine"
command -v perf >/dev/null && perf stat -r 1 true >/dev/null 2>&1 && references="$references perf"
[ -n "$references" ] || {
    echo "exec_vs_hyperfine: neither hyperfine nor perf: install the Debian package hyperfine (make deps-bench)" >&2
    exit 3
}

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

# Reference $3 (spaced, hyperfine, perf), $2 starts of $1: "mean_ns median_ns starts".
# spaced: hyperfine with a 200 ms sleep before every start, the probe's pace.
# Back to back (hyperfine, perf) a start finds the CPUs awake and the caches
# warm; spaced, it finds them idle, as the probe's starts do.
reference() {
    if [ "$3" = spaced ] || [ "$3" = hyperfine ]; then
        if [ "$3" = spaced ]; then prepare="sleep 0.2"; else prepare=true; fi
        hyperfine -N --style none --warmup 3 --prepare "$prepare" --runs "$2" \
            --export-json "$scratch/hf.json" "$1" >/dev/null 2>&1
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
        # Alternating which goes first, so that a drifting machine favours neither.
        line="$(cut -d' ' -f1 /proc/loadavg)"
        if [ $((r % 2)) -eq 0 ]; then
            for ref in $references; do line="$line|$ref $(reference "$cmd" $((seconds * 5)) "$ref")"; done
        fi
        p=$(probe "$cmd")
        if [ $((r % 2)) -eq 1 ]; then
            n=$(echo "$p" | cut -d' ' -f3)
            for ref in $references; do line="$line|$ref $(reference "$cmd" "$n" "$ref")"; done
        fi
        echo "$cmd|$p|$line" >>"$scratch/pairs"
        r=$((r + 1))
    done
done

python3 - "$scratch/pairs" <<'PY'
import sys
print(f"{'command':<18} {'round':>5} {'load':>5} {'contest mean':>13} {'median':>10}  reference: mean, median, contest's difference (mean, median)")
worst = {}
rounds = {}
for line in open(sys.argv[1]):
    cmd, p, load, *refs = line.rstrip("\n").split("|")
    pm, pmed, pn = (float(x) for x in p.split())
    k = rounds[cmd] = rounds.get(cmd, 0) + 1
    out = f"{cmd:<18} {k:>5} {load:>5} {pm/1e3:>10.1f} us {pmed/1e3:>7.1f} us "
    for ref in refs:
        name, hm, hmed, hn = ref.split()
        hm, hmed = float(hm), float(hmed)
        dm, dmed = 100 * (pm / hm - 1), 100 * (pmed / hmed - 1)
        worst[name] = max(worst.get(name, 0.0), abs(dmed))
        out += f" {name} {hm/1e3:.1f} us, {hmed/1e3:.1f} us, {dm:+.1f}%, {dmed:+.1f}%;"
    print(out.rstrip(";"))
print("\nstarts per side: the probe's window (5 a second); a reference as many, back to back,")
print("but spaced: hyperfine with a 200 ms sleep before each, the probe's pace;")
print("perf stat gives a mean only (it stands for its median); load: the 1-minute load average")
print("before the round")
for name, w in worst.items():
    print(f"largest median difference against {name}: {w:.1f}% ({'within' if w <= 10 else 'beyond'} the 10% goal)")
PY
