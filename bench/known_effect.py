#!/usr/bin/env python3
"""How often does contest call a difference of a known size?

A stand-in knob (a plain file under CONTEST_TEST_KNOB_ROOT, docs/vary.md)
holds a work factor in thousandths; the workload command reads it and does
that much of a fixed CPU loop (awk), so `--vary factor=1000,1050` is a true
5% difference in work. Each repetition is one `contest run --vary` of the
base factor against the effect's, paired by round, then `contest compare
--format json`; a repetition "calls" the difference when Time is significant
and points the right way. The table says, per effect, the share of
repetitions that called it (power; at 0%: false alarms), the median minimum
detectable effect contest stated, and the time a repetition took.

    bench/known_effect.py [--effects 0,2,5,10] [--reps 5] [--rounds 5]
                          [--loop 20000000] [--settle 10] [--runs-auto TARGET]
                          [--jobs N] [--busy] [--seed N] [--kind work|wait]
    CONTEST=path/to/contest (default: build/contest next to this script)

--runs-auto TARGET: each repetition is `--runs auto --target-mde TARGET`
(--rounds is then --max-runs) instead of a fixed number of rounds.

--busy: a busy machine of the bench's own beside every run (noise_maker.py:
0.5 to 1.5 CPUs in a random on/off pattern, outside contest's tree), and
each repetition also read net of outside work (compare --adjust outside's
figures, docs/noise.md): the table then gives both call rates and MDEs.
--jobs N: the workload runs N loops at once (the share of N - 1 CPUs the
noise takes is then what slows it, as it slows a parallel compile).

--kind wait: the effect is time the workload waits, not work: after the same
loop it sleeps effect% of the loop's own time (timed once at the start), as a
kernel that keeps a task from its CPU longer would. Either kind, each
repetition also tests, from the two labels' files paired by round, Time, the
workload's CPU time (user + sys: the same work every run, so it moves with the
machine's speed) and Time per CPU second (wall / CPU: the machine's speed
cancels; it sees waits, not work): calls and MDEs per measure (issue 59's
"measure that cancels the machine's speed").
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from bench_common import contest_binary, paired_log_test, paired_rank_test, speed_cancelling_figures

HERE = os.path.dirname(os.path.abspath(__file__))


def ok_runs(results, label):
    folder = os.path.join(results, label)
    with open(os.path.join(folder, sorted(os.listdir(folder))[0])) as f:
        return [r for r in json.load(f)["runs"] if r.get("status") == "ok"]


def measure_tests(results, base, new, effect_pct):
    """Per measure (bench_common.speed_cancelling_figures), the paired test of new against
    base by round, and whether it called the effect (the right way, or any way at 0%)."""
    by_round = {r.get("round"): r for r in ok_runs(results, new)}
    diffs = {}
    for r in ok_runs(results, base):
        other = by_round.get(r.get("round"))
        if other is None or not r.get("round"):
            continue
        a, b = speed_cancelling_figures(r), speed_cancelling_figures(other)
        for m in a.keys() & b.keys():
            diffs.setdefault(m, []).append(math.log(b[m] / a[m]))
    out = {}
    for m, d in diffs.items():
        for name, test in ((m, paired_log_test(d, 0.05)),
                           (m + " (ranks)", paired_rank_test(d, 0.05))):
            if test:
                test["called"] = bool(test["called"] and
                                      (effect_pct == 0 or test["change_pct"] > 0))
                out[name] = test
    return out


def loop_seconds(loop):
    """The awk loop's own time here, the median of 3 (what --kind wait sleeps a share of)."""
    times = []
    for _ in range(3):
        started = time.monotonic()
        subprocess.run(["awk", "-v", "n=%d" % loop,
                        "BEGIN { for (i = 0; i < n; i++) s += i; if (s < 0) print s }"],
                       check=True)
        times.append(time.monotonic() - started)
    return statistics.median(times)


def one_repetition(contest, scratch, effect_pct, args, rep):
    knobs = os.path.join(scratch, "knobs")
    os.makedirs(knobs, exist_ok=True)
    knob = os.path.join(knobs, "work_factor")
    with open(knob, "w") as f:
        f.write("1000\n")
    results = os.path.join(scratch, "results-%s-%d" % (effect_pct, rep))
    factor = 1000 + int(round(effect_pct * 10))
    # A zero effect still needs two labels: the same factor under two names.
    values = "1000,%d" % factor if factor != 1000 else "1000,1000.0"
    work = os.path.join(scratch, "work.sh")
    with open(work, "w") as f:
        f.write("f=$(cat %s)\n" % knob)
        # --kind work: the loop's work grows with the factor; --kind wait: the
        # same work on both sides, the factor only in the wait below.
        scale = "n = f * n / 1000; " if args.kind == "work" else ""
        loop = ("awk -v f=\"$f\" -v n=%d 'BEGIN { %sfor (i = 0; i < n; i++) s += i; "
                "if (s < 0) print s }'" % (args.loop // args.jobs, scale))
        if args.jobs == 1:
            f.write("%s\n" % loop)
        else:
            f.write("".join("%s &\n" % loop for _ in range(args.jobs)) + "wait\n")
        if args.kind == "wait":
            # effect% of the loop's time, as a wait: sleep ((f - 1000) / 1000) * loop's;
            # `sleep 0` at no effect, so both sides start the same programs (a
            # shell and sleep cost CPU and time of their own: skipped at 0, they
            # were a +2.5% CPU "effect" of a wait).
            f.write("awk -v f=\"$f\" -v t=%.6f 'BEGIN { s = (f - 1000) / 1000 * t; "
                    "system(\"sleep \" (s > 0 ? s : 0)) }'\n" % args.loop_s)
    cmd = [contest, "run", "--quiet", "-k", "ke", "-w", "command",
           "--workload-cmd", "sh " + work,
           "--vary", "%s=%s" % (knob, values), "--vary-label", "{value}",
           "--warmup", "0", "--settle", str(args.settle), "--timeline-hz", "0",
           "--workdir", os.path.join(scratch, "work"), "--results", results, "no_load"]
    if args.runs_auto:
        cmd += ["--runs", "auto", "--target-mde", str(args.runs_auto),
                "--max-runs", str(args.rounds)]
    else:
        cmd += ["--runs", str(args.rounds)]
    env = dict(os.environ, CONTEST_TEST_KNOB_ROOT=knobs)
    started = time.monotonic()
    run = subprocess.run(cmd, env=env, capture_output=True, text=True)
    took = time.monotonic() - started
    if run.returncode != 0:
        sys.exit("known_effect: contest run failed (%d): %s" % (run.returncode, run.stderr))
    labels = sorted(l for l in os.listdir(results) if not l.startswith("."))
    labels = [l for l in labels if os.path.isdir(os.path.join(results, l))]
    base = [l for l in labels if l == "1000"][0]
    new = [l for l in labels if l != base][0]
    measures = measure_tests(results, base, new, effect_pct)
    cmp = subprocess.run([contest, "compare", "--format", "json", "--results", results, base, new],
                         capture_output=True, text=True)
    if cmp.returncode != 0:
        sys.exit("known_effect: contest compare failed: %s" % cmp.stderr)
    j = json.loads(cmp.stdout)
    load = [l for l in j["loads"] if l["load"] == "no_load"][0]
    time_tests = [t for t in load["tests"] if t["tests"] == "Time" and "not in" not in t["method"]]
    time_test = time_tests[0]
    called = time_test["significant"] and (effect_pct == 0 or time_test["effect_pct"] > 0)
    net = [t for t in time_tests if t.get("basis") == "net of outside work"]
    net_called = (bool(net[0]["significant"] and (effect_pct == 0 or net[0]["effect_pct"] > 0))
                  if net else None)
    fit = load.get("time_outside") or {}
    base_dir = os.path.join(results, base)
    with open(os.path.join(base_dir, sorted(os.listdir(base_dir))[0])) as f:
        base_file = json.load(f)
    rounds = max(r.get("round", 0) for r in base_file["runs"])
    shutil.rmtree(results)
    return {"called": bool(called), "mde_pct": load.get("time_mde_pct"), "seconds": took,
            "net_called": net_called, "net_mde_pct": net[0]["mde_pct"] if net else None,
            "net_change_pct": net[0]["effect_pct"] if net else None,
            "why_not": fit.get("why_not") if not net else None,
            "explained": fit.get("explained"),
            "rounds": rounds, "change_pct": load.get("change_pct"), "measures": measures,
            "stopped_because": base_file.get("stopped_because")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--effects", default="0,2,5,10")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--loop", type=int, default=20000000)
    ap.add_argument("--settle", type=float, default=10)
    ap.add_argument("--runs-auto", type=float, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--busy", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kind", choices=("work", "wait"), default="work")
    args = ap.parse_args()
    args.loop_s = loop_seconds(args.loop // args.jobs) if args.kind == "wait" else 0
    contest = contest_binary("known_effect")
    scratch = tempfile.mkdtemp(prefix="contest-known-effect.")
    noise = None
    if args.busy:
        state = os.path.join(scratch, "noise")
        os.makedirs(state)
        # Its own session: outside contest's tree, as another user's build is.
        noise = subprocess.Popen([sys.executable, os.path.join(HERE, "noise_maker.py"),
                                  "--seed", str(args.seed), "--state", state],
                                 start_new_session=True)
    try:
        with open("/proc/loadavg") as f:
            load_before = f.read().split()[:3]
        rows = []
        for effect in [float(e) for e in args.effects.split(",")]:
            reps = [one_repetition(contest, scratch, effect, args, r) for r in range(args.reps)]
            mdes = [r["mde_pct"] for r in reps if r["mde_pct"] is not None]
            rows.append({
                "effect_pct": effect,
                "reps": len(reps),
                "called_share": sum(r["called"] for r in reps) / len(reps),
                "median_change_pct": statistics.median(r["change_pct"] for r in reps),
                "median_mde_pct": statistics.median(mdes) if mdes else None,
                "mean_rounds": statistics.mean(r["rounds"] for r in reps),
                "mean_seconds": statistics.mean(r["seconds"] for r in reps),
                "stops": [r["stopped_because"] for r in reps if r["stopped_because"]],
                "all": reps,
                "net_reps": [r for r in reps if r["net_called"] is not None],
                "why_not": [r["why_not"] for r in reps if r["why_not"]],
                "explained": [r["explained"] for r in reps if r["explained"] is not None],
            })
        with open("/proc/loadavg") as f:
            load_after = f.read().split()[:3]
    finally:
        if noise:
            noise.terminate()
            noise.wait()
        shutil.rmtree(scratch, ignore_errors=True)
    mode = ("--runs auto --target-mde %g --max-runs %d" % (args.runs_auto, args.rounds)
            if args.runs_auto else "%d rounds" % args.rounds)
    print("known-effect bench (%s): %s, loop %d in %d job(s), --settle %g%s; load average %s "
          "before, %s after" % (args.kind, mode, args.loop, args.jobs, args.settle,
                        ", busy (noise_maker.py, seed %d)" % args.seed if args.busy else "",
                        " ".join(load_before), " ".join(load_after)))
    print("| true effect | repetitions | called (power; 0%: false alarms) | median change "
          "| median MDE stated | rounds | s per repetition |")
    print("|--:|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        print("| %g%% | %d | %.0f%% | %+.1f%% | %s | %.1f | %.0f |" % (
            r["effect_pct"], r["reps"], 100 * r["called_share"], r["median_change_pct"],
            "±%.1f%%" % r["median_mde_pct"] if r["median_mde_pct"] is not None else "-",
            r["mean_rounds"], r["mean_seconds"]))
    if args.busy:
        print()
        print("net of outside work (compare's figures beside the raw ones):")
        print("| true effect | adjusted in | called raw | called net (of all reps) "
              "| median MDE raw | median MDE net | median explained |")
        print("|--:|--:|--:|--:|--:|--:|--:|")
        for r in rows:
            net = r["net_reps"]
            nm = [x["net_mde_pct"] for x in net if x["net_mde_pct"] is not None]
            print("| %g%% | %d of %d | %.0f%% | %.0f%% | %s | %s | %s |" % (
                r["effect_pct"], len(net), r["reps"], 100 * r["called_share"],
                100 * sum(x["net_called"] for x in net) / r["reps"],
                "±%.1f%%" % r["median_mde_pct"] if r["median_mde_pct"] is not None else "-",
                "±%.1f%%" % statistics.median(nm) if nm else "-",
                "%.0f%%" % (100 * statistics.median(r["explained"])) if r["explained"] else "-"))
        for r in rows:
            for why in r["why_not"]:
                print("%g%%: not adjusted: %s" % (r["effect_pct"], why))
    print()
    print("by measure, from the files paired by round (--kind %s; CPU: the workload's user + "
          "sys; Time per CPU s: wall / CPU, the machine's speed cancelled):" % args.kind)
    names = ["Time", "CPU", "Time per CPU s", "Time (ranks)", "Time per CPU s (ranks)"]
    print("| true effect | " + " | ".join("%s: called | %s: median change | %s: median MDE"
                                         % (m, m, m) for m in names) + " |")
    print("|--:|" + "--:|--:|--:|" * len(names))
    for r in rows:
        cells = []
        for m in names:
            ts = [x["measures"][m] for x in r["all"] if m in x["measures"]]
            if not ts:
                cells += ["-", "-", "-"]
                continue
            cells.append("%d of %d" % (sum(t["called"] for t in ts), len(ts)))
            cells.append("%+.2f%%" % statistics.median(t["change_pct"] for t in ts))
            cells.append("±%.2f%%" % statistics.median(t["mde_pct"] for t in ts))
        print("| %g%% | %s |" % (r["effect_pct"], " | ".join(cells)))
    for r in rows:
        for why in r["stops"]:
            print("%g%%: --runs auto stopped: %s" % (r["effect_pct"], why))
    return 0


if __name__ == "__main__":
    sys.exit(main())
