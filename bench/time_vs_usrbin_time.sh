#!/bin/sh
# Does contest measure a compile as `time` does? Compiles the synthetic
# project once under contest (`contest run --workload synthetic -n 1 no_load`)
# and once under `/usr/bin/time -v`, with the same command, environment and
# warm caches, and prints wall, user and sys side by side with the difference.
# The goal is agreement within 2%.
#
# Two compiles differ by themselves, the more so on a busy machine, so it then
# also has both measure one and the same compile: contest times
# `/usr/bin/time -v make ...` as a command workload. There the figures can
# differ only by how they are measured (and by time's own few milliseconds).
#
#   bench/time_vs_usrbin_time.sh [SIZE [JOBS]]
#     SIZE   --synthetic-size, translation units (default 100, the quick profile)
#     JOBS   make -jN (default: contest's, 4 x online CPUs)
#   CONTEST=path/to/contest (default: build/contest next to this script)
#   ROUNDS=N repeats the pair N times, alternating which goes first (default 1)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
contest=${CONTEST:-$here/../build/contest}
size=${1:-100}
jobs=${2:-$((4 * $(getconf _NPROCESSORS_ONLN)))}
rounds=${ROUNDS:-1}

[ -x "$contest" ] || { echo "time_vs_usrbin_time: no contest binary at $contest (make, or CONTEST=...)" >&2; exit 3; }
[ -x /usr/bin/time ] || { echo "time_vs_usrbin_time: /usr/bin/time missing: install the Debian package time" >&2; exit 3; }
command -v python3 >/dev/null || { echo "time_vs_usrbin_time: python3 missing" >&2; exit 3; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/contest-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

# contest: one no_load run, caches left warm (as they are for `time` below).
run_contest() {
    rm -rf "$scratch/results"
    "$contest" run --quiet --workload synthetic --synthetic-size "$size" --jobs "$jobs" \
        --no-drop-caches --workdir "$scratch/work" --results "$scratch/results" -n 1 no_load \
        >/dev/null
    find "$scratch/results" -name '*.json' | head -n 1
}

# /usr/bin/time: the command and environment contest recorded, after the
# same untimed `make clean`.
run_time() {
    python3 - "$1" "$scratch/time.txt" <<'PY'
import json, os, subprocess, sys
result = json.load(open(sys.argv[1]))
workload = result["config"]["workload"]
env = dict(os.environ)
env.update(kv.split("=", 1) for kv in workload["environment"])
tree = workload["directory"]
subprocess.run(["make", "clean"], cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
subprocess.run(["/usr/bin/time", "-v", "-o", sys.argv[2]] + workload["command"], cwd=tree,
               env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
PY
}

# Prints one round's table and appends its figures to $scratch/pairs.
compare() {
    python3 - "$1" "$scratch/time.txt" "$scratch/pairs" <<'PY'
import json, sys
run = next(r for r in json.load(open(sys.argv[1]))["runs"] if r["load"] == "no_load")
timed = {}
for line in open(sys.argv[2]):
    key, _, value = line.strip().rpartition(": ")
    timed[key] = value
def clock(text):  # h:mm:ss or m:ss.ss
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds
usr = {"wall_s": clock(timed["Elapsed (wall clock) time (h:mm:ss or m:ss)"]),
       "user_s": float(timed["User time (seconds)"]),
       "sys_s": float(timed["System time (seconds)"])}
with open(sys.argv[3], "a") as pairs:
    for key in ("wall_s", "user_s", "sys_s"):
        pairs.write(f"{key} {usr[key]} {run[key]}\n")
        diff = (run[key] - usr[key]) / usr[key] * 100 if usr[key] else float("nan")
        print(f"  {key:8} {usr[key]:14.2f} {run[key]:10.2f} {diff:+8.1f}%")
PY
}

echo "synthetic workload, $size translation units, make -j$jobs; contest at $contest" >&2
echo "  (preparing: the first contest run generates the project)" >&2
json=$(run_contest)  # generates the project; its figures are not compared
i=1
while [ "$i" -le "$rounds" ]; do
    if [ $((i % 2)) -eq 1 ]; then
        run_time "$json"
        json=$(run_contest)
    else
        json=$(run_contest)
        run_time "$json"
    fi
    echo "round $i of $rounds:"
    echo "  figure   /usr/bin/time    contest     diff"
    compare "$json"
    i=$((i + 1))
done

if [ "$rounds" -gt 1 ]; then
    python3 - "$scratch/pairs" <<'PY'
import sys
sums = {}
for line in open(sys.argv[1]):
    key, usr, con = line.split()
    s = sums.setdefault(key, [0.0, 0.0])
    s[0] += float(usr)
    s[1] += float(con)
print("sum over all rounds:")
print("  figure   /usr/bin/time    contest     diff")
for key, (usr, con) in sums.items():
    print(f"  {key:8} {usr:14.2f} {con:10.2f} {(con - usr) / usr * 100 if usr else float('nan'):+8.1f}%")
PY
fi

# One compile, measured by both.
cc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["workload"]["compiler"])' "$json")
rm -rf "$scratch/results"
"$contest" run --quiet --workload command --workdir "$scratch/work" --results "$scratch/results" \
    --no-drop-caches -n 1 \
    --clean-cmd "make -C synthetic-$size clean" \
    --workload-cmd "/usr/bin/time -v -o '$scratch/time.txt' make -C synthetic-$size -j$jobs CC='$cc'" \
    no_load >/dev/null
echo "one compile, measured by both:"
echo "  figure   /usr/bin/time    contest     diff"
compare "$(find "$scratch/results" -name '*.json' | head -n 1)"
