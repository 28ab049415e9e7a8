#!/usr/bin/env python3
"""What does --why's flight recorder cost? Pairs of `contest latency` runs,
with and without --why, interleaved (the order within a pair alternates),
each beside the same CPU-bound work (two awk loops, a compile's stand-in,
started with the probe): the work's wall time and the probe's p99 and
missed%, with and without the recorder, and the paired difference with its
95% CI. The --why runs also give what the recorder kept.

    bench/latency_why_cost.py [--pairs 8] [--duration 6] [--loop 40000000]
    CONTEST=path/to/contest (default: build/contest next to this script)
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

from bench_common import contest_binary


def one_run(contest, why, args):
    cmd = [contest, "latency", "--format", "json", "--duration", str(args.duration)]
    if why:
        cmd.append("--why")
    loop = "awk 'BEGIN { for (i = 0; i < %d; i++) s += i; if (s < 0) print s }'" % args.loop
    started = time.monotonic()
    probe = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    work = subprocess.Popen(["sh", "-c", "%s & %s & wait" % (loop, loop)])
    work.wait()
    work_s = time.monotonic() - started
    out, _ = probe.communicate()
    if probe.returncode != 0:
        sys.exit("latency_why_cost: contest latency failed (%d)" % probe.returncode)
    j = json.loads(out)
    lat = j["latency"]
    return {"work_s": work_s, "p99_us": lat["percentiles_ns"]["99.00"] / 1000,
            "missed_pct": j["missed_pct"], "why": j.get("why")}


def paired(a, b):
    d = [x - y for x, y in zip(a, b)]
    m = statistics.mean(d)
    half = 2.365 * statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    return m, half


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=8)
    ap.add_argument("--duration", type=float, default=6)
    ap.add_argument("--loop", type=int, default=40000000)
    args = ap.parse_args()
    contest = contest_binary("latency_why_cost")
    with open("/proc/loadavg") as f:
        before = f.read().split()[:3]
    plain, traced = [], []
    for i in range(args.pairs):
        order = [False, True] if i % 2 == 0 else [True, False]
        for why in order:
            (traced if why else plain).append(one_run(contest, why, args))
    with open("/proc/loadavg") as f:
        after = f.read().split()[:3]
    print("latency --why cost: %d pairs, %g s windows, two awk loops of %d beside; load average "
          "%s before, %s after" % (args.pairs, args.duration, args.loop, " ".join(before),
                                   " ".join(after)))
    print("| figure | without --why (median) | with --why (median) | paired difference, 95% CI |")
    print("|:--|--:|--:|--:|")
    for key, unit in (("work_s", "s"), ("p99_us", "us"), ("missed_pct", "%")):
        a = [r[key] for r in traced]
        b = [r[key] for r in plain]
        m, half = paired(a, b)
        print("| %s | %.3f %s | %.3f %s | %+.3f ± %.3f %s |" % (
            key, statistics.median(b), unit, statistics.median(a), unit, m, half, unit))
    kept = [r["why"] for r in traced if r["why"] and r["why"].get("recorded")]
    if kept:
        print("recorder: buffer %s KiB a CPU; late wake-ups per window %s; found in the trace %s"
              % (kept[0]["buffer_size_kb"], [w["late_wakeups"] for w in kept],
                 [w["in_trace"] for w in kept]))
    else:
        print("recorder: not recorded (%s)" % (traced[0]["why"] or {}).get("why"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
