#!/usr/bin/env python3
"""What --kernel guests can see: today's order against --duet, at equal wall time (issue 59).

Each repetition runs, one after the other (which one first alternates), two
`contest run --kernel` runs of the same pair of labels under the same
--budget: one in today's order (each round's guests one after another) and
one with --duet (each round's guests at once, pinned, their runs started
together). The pairs:

  A/A     one kernel under two labels (a=IMAGE b=IMAGE): every call is a false alarm
  effect  a=IMAGE b=EFFECT_IMAGE (--effect-image): a kernel with a planted
          delay in a path the workload feels, as the bisection demo's

From each run's result files the bench pairs a's and b's runs by round (the
round each load ran in both: a duet's round is one moment of the host) and,
for each measure, takes the paired log ratios b/a: their mean (the change),
a paired t test (two-sided, --alpha) and the minimum detectable effect at 80%
power, (t(1 - alpha/2, df) + t(0.8, df)) * SE, as a percentage; and, as
"<measure> (ranks)", the Hodges-Lehmann estimate with its Wilcoxon signed-rank
interval (bench_common.paired_rank_test), which heavy tails do not widen. The
measures:
Time (every load), the workload's CPU time and Time per CPU second (wall /
CPU: a guest the host runs slower stretches both, so its speed cancels;
bench_common.speed_cancelling_figures), a load's work done (Loads, each load
that counts work) and the p99 wake-up latency of each --latency probe. It also keeps contest
compare's own verdict on Time (its family correction applied) and, with
--runs-per-boot N > 1, the notes contest report gives of each level's noise.

It writes, in --out, guest-noise-<UTC>.json (every repetition's figures and
the command lines) and guest-noise-<UTC>.md (the tables docs/noise.md quotes),
and prints the tables: per mode and pair, the median MDE of each measure, the
calls (A/A: false alarms out of R, against alpha * R; effect: power), the
median rounds and the wall time a run took; then the A/A pair's rounds pooled over the
repetitions: each mode's SD of a round's log ratio and rounds a minute, the MDE they give at
equal wall time for longer budgets, and the time a paired test needs to call a 2.1% effect
(the bisection demo's). Each test keeps its log ratios in the JSON, and
`--tables-of guest-noise-<UTC>.json` prints a saved bench's tables again.

    bench/guest_noise.py [--image IMAGE] [--effect-image IMAGE] [--reps 20]
                         [--budget 600] [--vm-cpus 1] [--runs-per-boot 1]
                         [--loads no_load,process_load] [--latency cyclic]
                         [--workload "-w synthetic --synthetic-size 2"]
                         [--modes order,duet] [--pairs aa,effect] [--out DIR]
                         [--workdir DIR] [-- more contest run words]
    CONTEST=path/to/contest (default: build/contest next to this script)

IMAGE is --kernel's (a bzImage, a build tree, a linux-image-*.deb or package
name); the default is the package linux-image-amd64 depends on, fetched by
contest into --workdir (give one to keep it between runs). Under TCG a guest
boots in 10-12 s and a compile runs ~80x slower than on the host: the default
20 repetitions of 2 modes and 2 pairs at 600 s each take about 13 hours. Give
the machine to it alone (nothing else running), and see docs/noise.md.
"""
import argparse
import datetime
import glob
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bench_common import (POWER, contest_binary, normal_quantile, paired_log_test, paired_rank_test,
                          speed_cancelling_figures, t_quantile)

def default_image():
    out = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Depends: linux-image-") and line.endswith("-amd64"):
            return line.split(": ", 1)[1]
    sys.exit("guest_noise: no kernel package found (apt-cache depends linux-image-amd64): "
             "give --image")


def run_figures(run):
    """One run's figures by measure: Time, CPU and Time per CPU s (speed_cancelling_figures),
    Loads (work done), p99 <probe> (us)."""
    out = speed_cancelling_figures(run)
    if run.get("load_unit") and not run.get("load_not_counted") and run.get("load_units", 0) > 0:
        out["Loads"] = run["load_units"]
    for probe, p in (run.get("latency") or {}).items():
        pct = ((p or {}).get("latency") or {}).get("percentiles_ns") or {}
        if isinstance(pct.get("99.00"), (int, float)) and pct["99.00"] > 0:
            out["p99 " + probe] = pct["99.00"] / 1000
    return out


def label_runs(results, label):
    files = sorted(glob.glob(os.path.join(results, label, "*.json")))
    if not files:
        return None, []
    with open(files[-1]) as f:
        j = json.load(f)
    return j, [r for r in j.get("runs", []) if r.get("status") == "ok"]


def paired_tests(results, alpha):
    """Per load and measure: n pairs, change %, p, MDE % of b against a, paired by round."""
    fa, ra = label_runs(results, "a")
    fb, rb = label_runs(results, "b")
    by_round_b = {(r["load"], r.get("round")): r for r in rb}
    diffs = {}
    for r in ra:
        other = by_round_b.get((r["load"], r.get("round")))
        if other is None or not r.get("round"):
            continue
        fa_, fb_ = run_figures(r), run_figures(other)
        for measure in fa_.keys() & fb_.keys():
            diffs.setdefault((r["load"], measure), []).append(math.log(fb_[measure] / fa_[measure]))
    out = {}
    for (load, measure), d in sorted(diffs.items()):
        test = paired_log_test(d, alpha)
        if test:
            test["log_ratios"] = d
            out["%s: %s" % (load, measure)] = test
        ranked = paired_rank_test(d, alpha)
        if ranked:
            out["%s: %s (ranks)" % (load, measure)] = ranked
    # The rounds (boots of each label); with --runs-per-boot a round holds
    # that many runs of each load, each its own pair.
    rounds = max([r.get("boot") or r.get("round", 0) for r in ra] or [0])
    return out, rounds, fa


def compare_time_verdicts(contest, results):
    cmp = subprocess.run([contest, "compare", "--format", "json", "--results", results, "a", "b"],
                         capture_output=True, text=True)
    if cmp.returncode != 0:
        return {}, ["contest compare failed: " + cmp.stderr.strip()]
    j = json.loads(cmp.stdout)
    verdicts = {}
    for load in j.get("loads", []):
        tests = [t for t in load.get("tests", []) if t.get("tests") == "Time"
                 and "not in" not in t.get("method", "")]
        if tests:
            verdicts[load["load"]] = {"significant": bool(tests[0].get("significant")),
                                      "mde_pct": load.get("time_mde_pct"),
                                      "change_pct": load.get("change_pct")}
    return verdicts, j.get("notes", [])


def one_run(contest, args, scratch, mode, pair, image_b, rep):
    results = os.path.join(scratch, "results-%s-%s-%d" % (mode, pair, rep))
    cmd = [contest, "run", "--quiet", "--kernel", "a=" + args.image, "--kernel", "b=" + image_b,
           "--vm-cpus", str(args.vm_cpus), "--runs", "auto", "--target-mde", "0.01",
           "--max-runs", "1000", "--budget", "%gs" % args.budget,
           "--seed", str(1000 * rep + (1 if mode == "duet" else 2)),
           "--workdir", args.workdir, "--results", results]
    if args.runs_per_boot > 1:
        cmd += ["--runs-per-boot", str(args.runs_per_boot)]
    if mode == "duet":
        cmd.append("--duet")
    if args.latency:
        cmd += ["--latency", args.latency]
    cmd += shlex.split(args.workload) + args.more + args.loads.split(",")
    started = time.monotonic()
    run = subprocess.run(cmd, capture_output=True, text=True)
    took = time.monotonic() - started
    record = {"mode": mode, "pair": pair, "rep": rep, "command": cmd, "seconds": took,
              "exit": run.returncode}
    if run.returncode not in (0, 1):  # 1: some run failed, the rest still count
        record["error"] = run.stderr.strip().splitlines()[-3:]
        shutil.rmtree(results, ignore_errors=True)
        return record
    tests, rounds, file_a = paired_tests(results, args.alpha)
    record["tests"], record["rounds"] = tests, rounds
    record["compare_time"], record["notes"] = compare_time_verdicts(contest, results)
    if file_a:
        vm = file_a.get("config", {}).get("vm", {})
        record["accel"] = vm.get("accel")
        record["duet_taken"] = (vm.get("duet") or {}).get("taken")
        record["stopped_because"] = file_a.get("stopped_because")
    if args.keep:
        record["results"] = results
    else:
        shutil.rmtree(results, ignore_errors=True)
    return record


def summary_tables(records, args, intervals=None):
    lines = []
    measures = sorted({m for r in records for m in r.get("tests", {})})
    for pair in args.pairs.split(","):
        of_pair = [r for r in records if r["pair"] == pair and "tests" in r]
        if not of_pair:
            continue
        what = ("false alarms (A/A: one kernel under two labels), of %d repetitions; alpha %g, "
                "so about %.1f expected" % (args.reps, args.alpha, args.alpha * args.reps)
                if pair == "aa" else "calls of the planted effect (power)")
        lines.append("%s: median MDE (80%% power) and %s; --budget %g s a run, --vm-cpus %d, "
                     "--runs-per-boot %d" % (pair, what, args.budget, args.vm_cpus,
                                             args.runs_per_boot))
        lines.append("")
        lines.append("| measure | " + " | ".join(
            "%s: MDE | %s: called | %s: median change" % (m, m, m) for m in args.modes.split(","))
                     + " |")
        lines.append("|---|" + "--:|--:|--:|" * len(args.modes.split(",")))
        for measure in measures:
            cells = []
            for mode in args.modes.split(","):
                rs = [r["tests"][measure] for r in of_pair if r["mode"] == mode
                      and measure in r["tests"]]
                if not rs:
                    cells += ["-", "-", "-"]
                    continue
                cells.append("±%.1f%%" % statistics.median(x["mde_pct"] for x in rs))
                cells.append("%d of %d" % (sum(x["called"] for x in rs), len(rs)))
                cells.append("%+.1f%%" % statistics.median(x["change_pct"] for x in rs))
            lines.append("| %s | %s |" % (measure, " | ".join(cells)))
        lines.append("")
        for mode in args.modes.split(","):
            rs = [r for r in of_pair if r["mode"] == mode]
            if not rs:
                continue
            calls = sum(any(v["significant"] for v in r.get("compare_time", {}).values())
                        for r in rs)
            lines.append("%s, %s: %d repetitions, median %d rounds (a boot of each label each) "
                         "in %.0f s; contest compare called Time (its family corrected) in %d of "
                         "them%s" % (
                             pair, mode, len(rs), statistics.median(r.get("rounds", 0) for r in rs),
                             statistics.median(r["seconds"] for r in rs), calls,
                             "" if mode != "duet" or all(r.get("duet_taken") for r in rs)
                             else " (--duet NOT taken in some: too few CPUs)"))
        lines.append("")
    # --runs-per-boot > 1: each level's noise as contest report said it, of
    # every mode's last run of each pair (the JSON keeps every run's).
    for pair in args.pairs.split(","):
        for mode in args.modes.split(","):
            rs = [r for r in records if r["pair"] == pair and r["mode"] == mode and "notes" in r]
            levels = [n for n in (rs[-1]["notes"] if rs else []) if "noise by level" in n]
            if levels:
                lines.append("%s, %s, repetition %d: each level's noise (contest report):" % (
                    pair, mode, rs[-1]["rep"]))
                lines += ["- " + n for n in levels]
                lines.append("")
    lines += pooled_tables(records, args, intervals=intervals)
    failed = [r for r in records if "error" in r]
    for r in failed:
        lines.append("failed: %s %s rep %d: %s" % (r["mode"], r["pair"], r["rep"],
                                                   " | ".join(r["error"])))
    return lines


def round_sd(test, alpha):
    """A paired t's per-round SD of the log ratios: kept (log_ratios), or recovered from its
    MDE and pairs (a record made before they were kept)."""
    d = test.get("log_ratios")
    if d and len(d) >= 2:
        return statistics.stdev(d)
    n = test["pairs"]
    q = t_quantile(1 - alpha / 2, n - 1) + t_quantile(POWER, n - 1)
    return math.log1p(test["mde_pct"] / 100) / q * math.sqrt(n)


def ratio_interval(sds, rate, alpha):
    """Duet's MDE at equal wall time over the order's, with its interval: the ratio of the two
    modes' SDs of a round's log ratio times the square root of their rates of rounds (counted,
    taken as known). log(SD) of normal data has variance about 1 / (2 df), so the log of the SD
    ratio is normal with variance 1/(2 df_duet) + 1/(2 df_order); heavier tails than normal
    make this interval too narrow. None when a mode is missing."""
    if "duet" not in sds or "order" not in sds or not rate.get("duet") or not rate.get("order"):
        return None
    (sd_d, df_d), (sd_o, df_o) = sds["duet"], sds["order"]
    log_ratio = math.log(sd_d / sd_o) + 0.5 * math.log(rate["order"] / rate["duet"])
    half = normal_quantile(1 - alpha / 2) * math.sqrt(1 / (2 * df_d) + 1 / (2 * df_o))
    return math.exp(log_ratio), math.exp(log_ratio - half), math.exp(log_ratio + half), log_ratio, \
        1 / (2 * df_d) + 1 / (2 * df_o)


def pooled_tables(records, args, horizons=(300, 600, 3600), effect_pct=2.1, intervals=None):
    """The A/A pair's rounds pooled over the repetitions, per mode and measure: the SD of a
    round's log ratio (the root mean square of the repetitions', weighted by their degrees of
    freedom), the rounds a second of wall time gives, and from the two the MDE at equal wall
    time for longer budgets than a repetition's (normal quantiles: a budget long enough that
    the t's few degrees of freedom no longer dominate), and the time a paired test needs to
    call an effect of effect_pct at 80% power. A budget this short penalises the mode with
    fewer rounds twice (the SE and the t's quantiles); these figures take the second out."""
    aa = [r for r in records if r["pair"] == "aa" and "tests" in r]
    modes = args.modes.split(",")
    measures = sorted({m for r in aa for m in r["tests"] if not m.endswith("(ranks)")})
    if not aa or not measures:
        return []
    z = normal_quantile(1 - args.alpha / 2) + normal_quantile(POWER)
    head = ["| measure | " + " | ".join(
        "%s: SD a round | %s: MDE at %s" % (m, m, ", ".join("%d s" % h for h in horizons))
        for m in modes) + " | duet/order at equal time (%d%% interval) | time to call %.1f%% (order; duet) |"
        % (round(100 * (1 - args.alpha)), effect_pct), "|---|" + "--:|--:|" * len(modes) + "--:|--:|"]
    rate, rows, sds = {}, [], {}
    for mode in modes:
        rs = [r for r in aa if r["mode"] == mode]
        rate[mode] = sum(r.get("rounds", 0) for r in rs) / max(sum(r["seconds"] for r in rs), 1)
    for measure in measures:
        cells, mde_at, need = [], {}, {}
        for mode in modes:
            tests = [r["tests"][measure] for r in aa if r["mode"] == mode and measure in r["tests"]]
            df = sum(t["pairs"] - 1 for t in tests)
            if not tests or df == 0 or rate[mode] == 0:
                cells += ["-", "-"]
                continue
            sd = math.sqrt(sum((t["pairs"] - 1) * round_sd(t, args.alpha) ** 2
                               for t in tests) / df)
            mde_at[mode] = [100 * math.expm1(z * sd / math.sqrt(rate[mode] * h))
                            for h in horizons]
            need[mode] = (z * sd / math.log1p(effect_pct / 100)) ** 2 / rate[mode]
            sds.setdefault(measure, {})[mode] = (sd, df)
            cells.append("%.3f" % sd)
            cells.append(" / ".join("±%.1f%%" % x for x in mde_at[mode]))
        interval = ratio_interval(sds.get(measure, {}), rate, args.alpha)
        if interval and intervals is not None:
            intervals[measure] = interval
        ratio = ("%.2f (%.2f-%.2f)" % interval[:3] if interval else "-")
        times = "; ".join("%.0f min" % (need[m] / 60) if m in need else "-" for m in modes)
        rows.append("| %s | %s | %s | %s |" % (measure, " | ".join(cells), ratio, times))
    return (["A/A rounds pooled over the repetitions: rounds a minute %s; the MDE at equal wall "
             "time projected to longer budgets (normal quantiles, alpha %g, 80%% power)" % (
                 ", ".join("%s %.2f" % (m, 60 * rate[m]) for m in modes), args.alpha), ""]
            + head + rows + [""])


def saved_tables(paths, args):
    """Saved benches' tables: the files of one (image, workload, budget) are one cell, their
    records pooled; then, over the cells, duet's MDE ratio on each A/A measure combined (the
    cells' log ratios weighted by the inverse of their variances, a fixed-effect combination:
    it answers "over these conditions, on average", not whether every condition agrees)."""
    cells = {}
    for path in paths:
        with open(path) as f:
            saved = json.load(f)
        a = saved["args"]
        key = (a.get("image"), a.get("workload"), a.get("budget"), a.get("vm_cpus"))
        cell = cells.setdefault(key, {"args": a, "records": [], "heads": []})
        cell["records"] += saved["records"]
        cell["heads"].append(saved["head"])
    lines, by_measure = [], {}
    for (image, workload, budget, _), cell in cells.items():
        for key, value in cell["args"].items():
            if key not in ("tables_of", "out"):
                setattr(args, key, value)
        args.reps = len({r["rep"] for r in cell["records"]})
        intervals = {}
        lines += ["## %s, %s, --budget %g: %d repetitions from %d files" % (
            os.path.basename(image), workload, budget, args.reps, len(cell["heads"])), ""]
        lines += ["- " + h for h in cell["heads"]] + [""]
        lines += summary_tables(cell["records"], args, intervals)
        for measure, interval in intervals.items():
            by_measure.setdefault(measure, []).append(interval)
    if len(cells) > 1:
        z = normal_quantile(1 - args.alpha / 2)
        lines += ["## Over the %d cells: duet's MDE at equal time over the order's, combined "
                  "(fixed effect, %d%% interval)" % (len(cells), round(100 * (1 - args.alpha))),
                  "", "| measure | cells | combined ratio | interval | the cells' ratios |",
                  "|---|--:|--:|--:|---|"]
        for measure, ivs in sorted(by_measure.items()):
            weight = sum(1 / iv[4] for iv in ivs)
            mean = sum(iv[3] / iv[4] for iv in ivs) / weight
            half = z / math.sqrt(weight)
            lines.append("| %s | %d | %.2f | %.2f-%.2f | %s |" % (
                measure, len(ivs), math.exp(mean), math.exp(mean - half), math.exp(mean + half),
                ", ".join("%.2f" % iv[0] for iv in ivs)))
        lines.append("")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--image")
    ap.add_argument("--effect-image")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rep-from", type=int, default=1,
                    help="number the repetitions from this one (seeds and which mode goes first "
                    "follow it), for a bench run a repetition at a time")
    ap.add_argument("--budget", type=float, default=600)
    ap.add_argument("--vm-cpus", type=int, default=1)
    ap.add_argument("--runs-per-boot", type=int, default=1)
    ap.add_argument("--loads", default="no_load,process_load")
    ap.add_argument("--latency", default="cyclic")
    ap.add_argument("--workload", default="-w synthetic --synthetic-size 2")
    ap.add_argument("--modes", default="order,duet")
    ap.add_argument("--pairs", default="aa,effect")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--out", default=".")
    ap.add_argument("--workdir")
    ap.add_argument("--keep", action="store_true", help="keep every run's results folder")
    ap.add_argument("more", nargs="*", help="more contest run words (after --)")
    ap.add_argument("--tables-of", metavar="JSON", nargs="+",
                    help="print the tables of saved guest-noise-*.json files, run nothing: the "
                    "files of one image and workload pooled as one bench, and duet's MDE ratio "
                    "combined over them")
    args = ap.parse_args()
    if args.tables_of:
        print("\n".join(saved_tables(args.tables_of, args)))
        return 0
    contest = contest_binary("guest_noise")
    if args.image is None:
        args.image = default_image()
    pairs = args.pairs.split(",")
    if "effect" in pairs and not args.effect_image:
        pairs.remove("effect")
        args.pairs = ",".join(pairs)
        print("guest_noise: no --effect-image: the A/A pair alone", file=sys.stderr)
    scratch = tempfile.mkdtemp(prefix="contest-guest-noise.")
    if args.workdir is None:
        args.workdir = os.path.join(scratch, "work")
    os.makedirs(args.out, exist_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    with open("/proc/loadavg") as f:
        load_before = f.read().split()[:3]
    records = []
    try:
        for rep in range(args.rep_from, args.rep_from + args.reps):
            modes = args.modes.split(",")
            # Which mode goes first alternates, so the host's drift over the
            # bench falls on both alike.
            if rep % 2 == 0:
                modes.reverse()
            for pair in pairs:
                image_b = args.image if pair == "aa" else args.effect_image
                for mode in modes:
                    r = one_run(contest, args, scratch, mode, pair, image_b, rep)
                    records.append(r)
                    print("guest_noise: rep %d %s %s: %.0f s, %s" % (
                        rep, pair, mode, r["seconds"],
                        "failed" if "error" in r else "%d rounds" % r["rounds"]),
                          file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    with open("/proc/loadavg") as f:
        load_after = f.read().split()[:3]
    head = ("guest-noise bench (%s): image %s, effect %s; %s; loads %s, --latency %s; load "
            "average %s before, %s after" % (stamp, args.image, args.effect_image or "-",
                                             args.workload, args.loads, args.latency or "-",
                                             " ".join(load_before), " ".join(load_after)))
    lines = [head, ""] + summary_tables(records, args)
    base = os.path.join(args.out, "guest-noise-%s" % stamp)
    with open(base + ".json", "w") as f:
        json.dump({"head": head, "args": vars(args), "records": records}, f, indent=1)
    with open(base + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print("written: %s.json, %s.md" % (base, base), file=sys.stderr)
    return 0 if not any("error" in r for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
