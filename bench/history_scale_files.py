#!/usr/bin/env python3
"""Synthetic result files for bench/history_scale.sh: many kernels, few steps.

Every file is one `contest run` of one workload on one kernel, shaped as a
committed example is (results/examples/vary-thp: its system, its config
without --vary, a run's fields and its timeline totals: PSI, vmstat, disk,
the machine's CPU; no timeline samples, which the history does not read),
with four loads (no_load, io_load, mem_load, process_load) of RUNS runs each.
One machine; workload w is the synthetic workload of size 100 + 10 w; kernel
k is release 6.1.k, run on day k. A run's measures: the record's 11 with
unit_cpu_us (and the load's 2 under a load), PSI's 6, the disk's 2, the
machine CPU's 4 and 37 vmstat counters: 61 under no_load and 63 under a
load, so a workload's file holds 61 + 3 x 63 = 250 series, and 4 workloads
hold 1,000.

Noise, as tests/simulations/sim_history_changes.cpp draws it: every value of
a run is its level times exp(0.03 t) with t Student's t of 3 degrees of
freedom (a spread of about 3% with heavy tails), and every file's day moves
all its values by about 1% (exp(0.01 z), z normal). A few steps are planted
(STEPS below, at a fraction of the kernels) and listed in planted.json.

    bench/history_scale_files.py --out DIR [--kernels 200] [--workloads 50]
                                 [--series-workloads 4] [--runs 3] [--seed 57]

writes DIR/files/kKKK/wWW.json (kernels x workloads files: the import set),
DIR/series/kKKK/wWW.json (hard links to the files of the first
--series-workloads workloads: the change-point set) and DIR/planted.json.
"""
import argparse
import copy
import datetime
import hashlib
import json
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "results", "examples")
# A real file with timeline totals (PSI, vmstat, disk, machine CPU), and one
# with the facts of io_load, mem_load and process_load.
TEMPLATE = os.path.join(EXAMPLES, "vary-thp", "6.18.44-fc-v1045,thp=never",
                        "2026-12-01T112235Z.json")
LOAD_FACTS = os.path.join(EXAMPLES, "6.18.44-fc-v657", "2026-11-30T044314Z.json")

LOADS = ["no_load", "io_load", "mem_load", "process_load"]
# Each load's slowdown of the compile, its unit and its work per second.
LOAD_SHAPE = {
    "no_load": (1.00, "", 0.0, ""),
    "io_load": (1.35, "MiB written", 300.0, ""),
    "mem_load": (1.10, "GiB touched", 0.9, "passes"),
    "process_load": (1.20, "ring hops", 95000.0, ""),
}
# vmstat counters that move under a load, per second of the window (the
# compile's own faults too, below; the rest are zero, as the template has
# nearly all of them).
LOAD_VMSTAT = {
    "io_load": {"pgscan_file": 4000, "pgscan_kswapd": 4000, "pgsteal_file": 3800,
                "pgsteal_kswapd": 3800, "workingset_refault_file": 60},
    "mem_load": {"pgscan_anon": 300, "pgscan_file": 9000, "pgscan_kswapd": 9300,
                 "pgsteal_file": 8800, "pgsteal_kswapd": 8800, "allocstall_normal": 2,
                 "compact_stall": 1, "workingset_refault_file": 400},
}
# PSI a load raises (the rest as the template has it), in % of the time.
PSI_UNDER = {
    ("io_load", "io", "some"): 5.0, ("io_load", "io", "full"): 1.5,
    ("mem_load", "memory", "some"): 2.0, ("mem_load", "memory", "full"): 0.5,
}
# The planted steps: (workload, load or None for every load, measures,
# where as a fraction of the kernels, the ratio from there on).
STEPS = [
    (0, None, ["wall_s", "user_s", "sys_s"], 0.60, 1.05),
    (1, "io_load", ["wall_s"], 0.30, 1.10),
    (2, None, ["minor_faults", "vmstat_pgfault_per_s"], 0.45, 0.92),
    (3, "mem_load", ["max_rss_kib"], 0.80, 1.12),
]

def student_t3(rng):
    """Student's t with 3 degrees of freedom."""
    chi2 = sum(rng.gauss(0, 1) ** 2 for _ in range(3))
    return rng.gauss(0, 1) / math.sqrt(chi2 / 3)


def step_ratio(workload, load, measure, kernel, kernels):
    r = 1.0
    for w, l, measures, where, ratio in STEPS:
        if w == workload and l in (None, load) and measure in measures and \
                kernel >= round(where * kernels):
            r *= ratio
    return r


def planted(kernels, workloads):
    """Every planted step, one line a series: what bench/history_scale.sh matches.
    A step of wall_s alone moves cpu_pct too ((user_s + sys_s) / wall_s)."""
    out = []
    for w, l, measures, where, ratio in STEPS:
        if w >= workloads:
            continue
        at = round(where * kernels)
        moved = [(m, ratio) for m in measures]
        if "wall_s" in measures and "user_s" not in measures:
            moved.append(("cpu_pct", 1 / ratio))
        for load in ([l] if l else LOADS):
            for m, r in moved:
                out.append({"workload": workload_name(w), "load": load, "measure": m,
                            "first_after": release(at), "index": at, "ratio": round(r, 4)})
    return out


def release(k):
    return "6.1.%d" % k


def workload_name(w):
    return "synthetic-%d -j8" % (100 + 10 * w)


def one_file(template, load_facts, w, k, kernels, runs, seed):
    # One generator per file: any file can be made again alone, and the
    # order they are made in does not matter.
    rng = random.Random("%d/%d/%d" % (seed, w, k))
    day = math.exp(0.01 * rng.gauss(0, 1))
    size = 100 + 10 * w
    work = size / 100.0  # the compile's size: times and counts grow with it
    f = copy.deepcopy({key: v for key, v in template.items() if key != "runs"})
    start = datetime.datetime(2026, 1, 1, 8, 0, 0) + datetime.timedelta(days=k, minutes=7 * w)
    f["label"] = release(k)
    f["started_at"] = start.strftime("%Y-%m-%dT%H:%M:%SZ")
    sysinfo = f["system"]
    sysinfo["hostname"] = "bench-host"
    sysinfo["kernel_release"] = release(k)
    sysinfo["kernel_version"] = "#1 SMP PREEMPT_DYNAMIC Debian %s-1" % release(k)
    sysinfo["kernel"]["config"]["sha256"] = hashlib.sha256(release(k).encode()).hexdigest()
    config = f["config"]
    config.pop("vary", None)
    config["loads"] = list(LOADS)
    config["runs"] = runs
    config["order_seed"] = (seed * 100003 + w * 1009 + k) % 2 ** 32
    config["workdir"] = "/var/tmp/contest-bench/work"
    wl = config["workload"]
    wl["synthetic_size"] = size
    wl["directory"] = "/var/tmp/contest-bench/work/synthetic-%d" % size
    wl["project_hash"] = hashlib.sha256(b"synthetic-%d" % size).hexdigest()[:16]
    f["loads"] = {name: copy.deepcopy(load_facts[name]) for name in LOADS}

    base = {l: next(r for r in template["runs"] if r["load"] == ("mem_load" if l == "mem_load"
                                                                  else "no_load"))
            for l in LOADS}
    f["runs"] = []
    clock = 0.0
    order = [(l, i) for i in range(1, runs + 1) for l in LOADS]
    for rnd in range(1, runs + 1):
        turn = [(l, i) for l, i in order if i == rnd]
        rng.shuffle(turn)
        for load, index in turn:
            b = base[load]
            slow, unit, units_per_s, secondary = LOAD_SHAPE[load]

            def noisy(measure, level):
                return level * day * step_ratio(w, load, measure, k, kernels) * \
                    math.exp(0.03 * student_t3(rng))

            r = copy.deepcopy(b)
            r["load"] = load
            r["index"] = index
            r["round"] = rnd
            wall = noisy("wall_s", 41.0 * work * slow)
            r["wall_s"] = round(wall, 9)
            r["user_s"] = round(noisy("user_s", b["user_s"] * work), 6)
            r["sys_s"] = round(noisy("sys_s", b["sys_s"] * work * slow), 6)
            r["cpu_pct"] = noisy("cpu_pct", 100.0 * (r["user_s"] + r["sys_s"]) / wall)
            for m in ["max_rss_kib", "minor_faults", "major_faults", "voluntary_switches",
                      "involuntary_switches"]:
                scale = 1.0 if m == "max_rss_kib" else work
                r[m] = int(round(noisy(m, b[m] * scale)))
            r["others_cpu_pct"] = noisy("others_cpu_pct", 3.0)
            r["steal_pct"] = noisy("steal_pct", 0.5)
            r["unit_cpu_us"] = noisy("unit_cpu_us", 117.5)
            r["load_unit"] = unit
            r["load_secondary_unit"] = secondary
            r["load_secondary"] = 0.0
            if unit:
                r["load_units"] = noisy("load_units_per_s", units_per_s) * wall
                r["load_cpu_pct"] = noisy("load_cpu_pct", 24.0)
            else:
                r["load_units"] = 0.0
                r["load_cpu_pct"] = 0.0
            tl = r["timeline"]
            tl["t0_unix_s"] = round(start.replace(tzinfo=datetime.timezone.utc).timestamp() +
                                    clock, 3)
            tl["marks"] = {"workload_start": 0.0002, "workload_end": round(wall, 9)}
            totals = tl["totals"]
            window = round(wall + 0.01, 2)
            totals["window_s"] = window
            cpu = totals["cpu_pct_of_machine"]
            for what in cpu:
                cpu[what] = round(noisy("machine_cpu_%s_pct" % what, max(cpu[what], 0.01)), 2)
            disk = totals["disk"]
            for what, per_s in (("read_bytes", 8.0e6), ("written_bytes",
                                                       (2.0e8 if load == "io_load" else 1.5e6))):
                disk[what] = int(noisy("disk_%s_per_s" % what, per_s) * window)
            psi = totals["psi"]
            for resource in ("cpu", "io", "memory"):
                for kind in ("some", "full"):
                    pct = psi[resource][kind + "_pct"]
                    level = PSI_UNDER.get((load, resource, kind), pct)
                    if level > 0:
                        level = noisy("psi_%s_%s_pct" % (resource, kind), level)
                    psi[resource][kind + "_pct"] = level
                    psi[resource][kind + "_us"] = int(level * window * 1e4)
            vm = totals["vmstat"]
            moving = dict(LOAD_VMSTAT.get(load, {}))
            moving["pgfault"] = 70000.0 * work
            moving["pgmajfault"] = 5.0
            for counter in vm:
                vm[counter] = int(round(noisy("vmstat_%s_per_s" % counter, moving[counter]) *
                                        window)) if counter in moving else 0
            f["runs"].append(r)
            clock += wall + 5.0
    f["finished_at"] = (start + datetime.timedelta(seconds=clock)).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--kernels", type=int, default=200)
    ap.add_argument("--workloads", type=int, default=50)
    ap.add_argument("--series-workloads", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=57)
    args = ap.parse_args()
    if args.series_workloads > args.workloads:
        sys.exit("history_scale_files: --series-workloads is more than --workloads")
    with open(TEMPLATE) as t:
        template = json.load(t)
    with open(LOAD_FACTS) as t:
        load_facts = json.load(t)["loads"]
    # A no_load and a mem_load run as the runs' shape, without the timeline's
    # samples (what copying every file's template would cost most).
    runs = []
    for load in ("no_load", "mem_load"):
        r = next(r for r in template["runs"] if r["load"] == load and r["status"] == "ok")
        for drop in ("columns", "t_s"):
            r["timeline"].pop(drop, None)
        runs.append(r)
    template["runs"] = runs
    for k in range(args.kernels):
        folder = os.path.join(args.out, "files", "k%03d" % k)
        series = os.path.join(args.out, "series", "k%03d" % k)
        os.makedirs(folder, exist_ok=True)
        os.makedirs(series, exist_ok=True)
        for w in range(args.workloads):
            path = os.path.join(folder, "w%02d.json" % w)
            with open(path, "w") as out:
                json.dump(one_file(template, load_facts, w, k, args.kernels, args.runs,
                                   args.seed), out, indent=2, sort_keys=True)
                out.write("\n")
            if w < args.series_workloads:
                os.link(path, os.path.join(series, "w%02d.json" % w))
    with open(os.path.join(args.out, "planted.json"), "w") as out:
        json.dump(planted(args.kernels, args.series_workloads), out, indent=1)


if __name__ == "__main__":
    main()
