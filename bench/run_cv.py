#!/usr/bin/env python3
"""Which measure of the workload varies least from run to run?

Reads contest result files (or folders of them) and prints, per file group
and load, the coefficient of variation (sd / mean, %) of each per-run
measure of the finished runs: wall time, user+sys, user, sys, CPU%, context
switches, faults, and what the machine did meanwhile (others_cpu_pct), with
the mean settle wait where runs recorded one.

    bench/run_cv.py results/noise-plain results/noise-settled
    bench/run_cv.py --json FILE...   (one JSON object per group and load)
"""
import json
import math
import os
import sys

MEASURES = [
    ("wall_s", lambda r: r["wall_s"]),
    ("user+sys_s", lambda r: r["user_s"] + r["sys_s"]),
    ("user_s", lambda r: r["user_s"]),
    ("sys_s", lambda r: r["sys_s"]),
    ("cpu_pct", lambda r: r["cpu_pct"]),
    ("invol_switches", lambda r: r["involuntary_switches"]),
    ("minor_faults", lambda r: r["minor_faults"]),
]


def files_of(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                for n in sorted(names):
                    if n.endswith(".json"):
                        yield p, os.path.join(root, n)
        else:
            yield os.path.dirname(p) or ".", p


def cv_pct(values):
    if len(values) < 2:
        return float("nan")
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return 100 * sd / abs(mean) if mean else float("nan")


def main(argv):
    as_json = "--json" in argv
    paths = [a for a in argv if a != "--json"]
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    groups = {}  # (group, load) -> runs
    for group, path in files_of(paths):
        with open(path) as f:
            result = json.load(f)
        for run in result.get("runs", []):
            if run.get("status") == "ok":
                groups.setdefault((group, run["load"]), []).append(run)
    rows = []
    for (group, load), runs in sorted(groups.items()):
        row = {"group": group, "load": load, "runs": len(runs)}
        for name, get in MEASURES:
            try:
                row[name] = cv_pct([get(r) for r in runs])
            except KeyError:
                row[name] = float("nan")
        others = [r["others_cpu_pct"] for r in runs if r.get("others_cpu_pct") is not None]
        row["others_cpu_pct_mean"] = sum(others) / len(others) if others else float("nan")
        waits = [r["settle_wait_s"] for r in runs if r.get("settle_wait_s") is not None]
        row["settle_wait_s_mean"] = sum(waits) / len(waits) if waits else float("nan")
        row["settled_share"] = (sum(r.get("settle") == "settled" for r in runs) / len(runs)
                                if waits else float("nan"))
        rows.append(row)
    if as_json:
        for row in rows:
            print(json.dumps(row))
        return 0
    head = ["group", "load", "runs"] + [m for m, _ in MEASURES] + [
        "others%", "wait_s", "settled"]
    print("CV % of each measure over the finished runs (lower: steadier)")
    print("  ".join(head))
    for row in rows:
        cells = [row["group"], row["load"], str(row["runs"])]
        cells += ["%.2f" % row[m] for m, _ in MEASURES]
        cells += ["%.1f" % row["others_cpu_pct_mean"], "%.2f" % row["settle_wait_s_mean"],
                  "%.0f%%" % (100 * row["settled_share"]) if not math.isnan(row["settled_share"])
                  else "-"]
        print("  ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
