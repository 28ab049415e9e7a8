#!/bin/sh
# What does the machine-speed sampler cost, and how steady is its figure?
#
# Cost: COST_RUNS no_load runs of `sleep 10` while this script reads, every
# 10 ms, the CPU time of contest's sampler thread (its name, contest-speed,
# in /proc/PID/task/TID/comm; its time on CPU from .../schedstat): the last
# reading of each thread over the runs' wall time is the sampler's CPU per
# second of window (a thread's last 10 ms are missed: under one wake-up in
# forty). Beside it, the units' own share (unit_cpu_us x the units a second):
# what the sampler costs beyond it is its wake-ups.
#
# Steadiness: RUNS no_load runs of `sleep 1` and unit_cpu_us's mean, spread
# and CV over them, from the result file. The load average is printed with
# the figures.
#
#   bench/machine_speed_cost.sh [RUNS [COST_RUNS]]
#     RUNS       runs of `sleep 1` for the CV (default 20)
#     COST_RUNS  runs of `sleep 10` for the cost (default 3)
#   CONTEST=path/to/contest (default: build/contest next to this script)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
CONTEST=${CONTEST:-$here/../build/contest} RUNS=${1:-20} COST_RUNS=${2:-3} exec python3 - <<'EOF'
import glob, json, math, os, statistics, subprocess, tempfile, time

contest, runs, cost_runs = os.environ["CONTEST"], int(os.environ["RUNS"]), int(os.environ["COST_RUNS"])


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def run(scratch, seconds, n, watch):
    """contest run of `sleep SECONDS` N times; with watch, the last CPU ns
    read of each sampler thread, by tid."""
    p = subprocess.Popen([contest, "run", "-q", "-k", "speed-cost", "-w", "command",
                          "--workload-cmd", f"sleep {seconds}", "--runs", str(n),
                          "--workdir", scratch + "/work", "--results", scratch + "/results",
                          "no_load"], stdout=subprocess.DEVNULL)
    last_ns = {}
    while p.poll() is None:
        if watch:
            for task in glob.glob(f"/proc/{p.pid}/task/*"):
                try:
                    if open(task + "/comm").read().strip() == "contest-speed":
                        last_ns[task] = int(open(task + "/schedstat").read().split()[0])
                except OSError:
                    pass  # the thread ended between the listing and the read
        time.sleep(0.01)
    if p.returncode != 0:
        raise SystemExit(f"contest run exited {p.returncode}")
    records = [r for f in glob.glob(scratch + "/results/**/*.json", recursive=True)
               for r in json.load(open(f))["runs"] if r["status"] == "ok"]
    return records, last_ns


print(f"load average before: {loadavg()}")
with tempfile.TemporaryDirectory() as scratch:
    records, last_ns = run(scratch, 10, cost_runs, True)
wall_s = sum(r["wall_s"] for r in records)
thread_us_per_s = sum(last_ns.values()) / 1e3 / wall_s
# One unit at the window's start, then one every 0.25 s.
unit_us_per_s = sum(r["unit_cpu_us"] * (1 + math.floor(r["wall_s"] / 0.25))
                    for r in records) / wall_s
print(f"cost over {len(records)} runs of sleep 10 ({len(last_ns)} sampler threads seen): "
      f"{thread_us_per_s:.0f} us of CPU per s of window = {thread_us_per_s / 1e4:.3f}% of one CPU; "
      f"the units alone {unit_us_per_s:.0f} us/s ({unit_us_per_s / 1e4:.3f}%)")
print(f"load average after the cost runs: {loadavg()}")

with tempfile.TemporaryDirectory() as scratch:
    records, _ = run(scratch, 1, runs, False)
units = [r["unit_cpu_us"] for r in records if r.get("unit_cpu_us") is not None]
if len(units) < 2:
    raise SystemExit("fewer than two runs recorded unit_cpu_us")
mean, sd = statistics.mean(units), statistics.stdev(units)
print(f"unit_cpu_us over {len(units)} of {len(records)} runs of sleep 1: mean {mean:.1f} "
      f"sd {sd:.1f} CV {100 * sd / mean:.1f}%  min {min(units):.1f} "
      f"median {statistics.median(units):.1f} max {max(units):.1f}")
print(f"load average after: {loadavg()}")
EOF
