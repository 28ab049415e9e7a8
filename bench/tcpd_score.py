#!/usr/bin/env python3
"""contest's change points graded on human annotations: the Turing Change Point Dataset.

Runs contest's change-point method (find_change_points, its defaults, no tuning per series)
and Perfherder's rule (perfherder_alerts) through bench's contest_change_points on every
univariate series of a TCPD checkout (github.com/alan-turing-institute/TCPD: annotations.json
and datasets/NAME/NAME.json; the series that need downloading are named as absent), and
scores them as TCPDBench does (van den Burg & Williams, arXiv 2003.06222): F1 with a margin of
5 points against all five annotators, and segmentation covering. Beside them, TCPDBench's own
figures for binseg, PELT, BOCPD and zero, default and oracle (best parameters a series), read
from a TCPDBench checkout's analysis/output/scores/ when --tcpdbench is given; the zero
method (no change at all), whose scores depend only on the annotations, is also scored here
and must equal TCPDBench's to the last bit, a check of this scorer.

    bench/tcpd_score.py TCPD_DIR [--tcpdbench TCPDBENCH_DIR] [--binary PATH]
    (default binary: build/contest_change_points next to this script)

The dataset is not contest's: nothing of it is kept. docs/history.md, "Graded on human
annotations", holds the table this printed and what it says.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MARGIN = 5
PAPER_METHODS = ["binseg", "pelt", "bocpd", "zero"]


# --- TCPDBench's metrics (arXiv 2003.06222, section 4), written afresh ---------------------
#
# F1: the predictions and every annotator's set each hold the point 0 (the start counts as a
# change both ways). An annotated point is matched to the nearest prediction within MARGIN
# that no earlier annotated point took; precision is the points of the union of the
# annotators' sets so matched over the predictions, recall the mean over annotators of their
# points matched over their points. The annotated points are taken in the order Python
# iterates a set of them, which decides which of two points near one prediction takes it: so
# the scores below are TCPDBench's to the last bit.


def matched(annotated, predicted):
    """How many of `annotated` (a set) find a prediction of their own within MARGIN."""
    free = set(predicted)
    count = 0
    for tau in annotated:
        near = sorted((abs(tau - x), x) for x in free if abs(tau - x) <= MARGIN)
        if near:
            free.discard(near[0][1])
            count += 1
    return count


def f1_score(annotations, predicted):
    """annotations: annotator -> change indices; predicted: change indices (0-based)."""
    sets = [set(points) | {0} for points in annotations.values()]
    union = set().union(*sets)
    x = set(predicted) | {0}
    precision = matched(union, x) / len(x)
    recall = 1 / len(sets) * sum(matched(s, x) / len(s) for s in sets)
    return precision * recall / (0.5 * recall + 0.5 * precision)


def segments(changes, n):
    """The segments [start, end) the changes (first index of each new segment) make of 0..n-1."""
    bounds = sorted({c for c in changes if 0 < c < n})
    starts = [0] + bounds
    return list(zip(starts, bounds + [n]))


def covering(annotations, predicted, n):
    """Mean over annotators of how well the prediction's segments cover theirs: each of their
    segments weighted by its length times its best Jaccard overlap with a predicted one."""
    mine = segments(predicted, n)
    scores = []
    for points in annotations.values():
        total = 0
        for a, b in segments(points, n):
            best = 0
            for c, d in mine:
                inter = min(b, d) - max(a, c)
                if inter > 0:
                    best = max(best, inter / ((b - a) + (d - c) - inter))
            total += (b - a) * best
        scores.append(total / n)
    return sum(scores) / len(scores)


def check_scorer():
    """The worked cases of TCPDBench's metrics.py (its doctests), which the scorer must give."""
    cases = [
        (f1_score({1: [10, 20], 2: [11, 20], 3: [10], 4: [0, 5]}, [10, 20]), 1.0),
        (f1_score({1: [], 2: [10], 3: [50]}, [10]), 0.9090909090909091),
        (f1_score({1: [], 2: [10], 3: [50]}, []), 0.8),
        (covering({1: [10, 20], 2: [10], 3: [0, 5]}, [10, 20], 45), 0.7962962962962963),
        (covering({1: [], 2: [10], 3: [40]}, [10], 45), 0.7954144620811286),
        (covering({1: [], 2: [10], 3: [40]}, [], 45), 0.8189300411522634),
    ]
    for i, (got, want) in enumerate(cases):
        if abs(got - want) > 1e-12:
            sys.exit("tcpd_score: the scorer gives %r in worked case %d, TCPDBench %r" % (got, i, want))


def fail(message):
    """Bad input: one line, exit 2."""
    print("tcpd_score: " + message, file=sys.stderr)
    sys.exit(2)


def cleaned(changes, n):
    """As TCPDBench cleans a method's output: distinct, and neither 0 nor n - 1."""
    return sorted({c for c in changes if 1 <= c < n - 1})


# --- the series and the methods ------------------------------------------------------------


def run_method(binary, values, perfherder):
    """The change indices contest_change_points prints for `values` (None: missing)."""
    with tempfile.NamedTemporaryFile("w", suffix=".series") as f:
        for v in values:
            f.write(("" if v is None else repr(float(v))) + "\n")
        f.flush()
        args = [binary] + (["--perfherder"] if perfherder else []) + [f.name]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines() if line.strip()]


def load_series(tcpd, name):
    """(values, n_dim) of a dataset in the checkout, or None where it must be downloaded."""
    path = os.path.join(tcpd, "datasets", name, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        data = json.load(f)
    return [column["raw"] for column in data["series"]], data["n_dim"], data["n_obs"]


def load_paper_scores(tcpdbench):
    """{(experiment, metric): {dataset: {method: score or None}}} from TCPDBench's score files."""
    scores = {}
    for experiment in ("default", "oracle"):
        for metric in ("f1", "cover"):
            path = os.path.join(tcpdbench, "analysis", "output", "scores",
                                "%s_%s_scores.json" % (experiment, metric))
            with open(path) as f:
                scores[(experiment, metric)] = json.load(f)
    return scores


def mean(values):
    return statistics.mean(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tcpd", help="a TCPD checkout (annotations.json, datasets/)")
    parser.add_argument("--tcpdbench", help="a TCPDBench checkout, for its score files")
    parser.add_argument("--binary", default=os.path.join(HERE, "..", "build", "contest_change_points"))
    args = parser.parse_args()
    check_scorer()
    if not os.access(args.binary, os.X_OK):
        fail("no contest_change_points at %s (cmake --build build --target "
             "contest_change_points, or --binary)" % args.binary)
    try:
        with open(os.path.join(args.tcpd, "annotations.json")) as f:
            annotations = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s is not a TCPD checkout: %s" % (args.tcpd, e))
    try:
        paper = load_paper_scores(args.tcpdbench) if args.tcpdbench else None
    except (OSError, ValueError) as e:
        fail("%s holds no TCPDBench score files: %s" % (args.tcpdbench, e))

    absent, multivariate, rows = [], [], []
    for name in sorted(annotations):
        found = load_series(args.tcpd, name)
        if found is None:
            absent.append(name)
            continue
        columns, n_dim, n = found
        if n_dim > 1:
            multivariate.append(name)
            continue
        values = columns[0]
        anno = annotations[name]
        row = {"name": name, "n": n, "qc": name.startswith("quality_control"),
               "missing": sum(v is None for v in values),
               "not_positive": sum(v is not None and v <= 0 for v in values)}
        for method, perf in (("contest", False), ("perfherder", True)):
            found_changes = cleaned(run_method(args.binary, values, perf), n)
            row[method + "_changes"] = found_changes
            row[method] = {"f1": f1_score(anno, found_changes),
                           "cover": covering(anno, found_changes, n)}
        row["zero"] = {"f1": f1_score(anno, []), "cover": covering(anno, [], n)}
        row["annotated"] = sorted(set().union(*map(set, anno.values())))
        rows.append(row)

    real = [r for r in rows if not r["qc"]]
    print("TCPD series in the checkout: %d univariate real, %d quality control; multivariate "
          "(skipped: the method is univariate): %s; to be downloaded (absent): %s"
          % (len(real), len(rows) - len(real), ", ".join(multivariate) or "none",
             ", ".join(absent) or "none"))
    print()
    def binseg(name, metric):
        """TCPDBench's default binseg on a series, as a cell."""
        score = paper[("default", metric)].get(name, {}).get("binseg") if paper else None
        return "-" if score is None else "%.3f" % score

    print("| series | n | annotated (any annotator) | contest's changes | perfherder's | "
          "F1: contest | perfherder | binseg | zero | cover: contest | perfherder | binseg | zero |")
    print("|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        note = " (qc)" if r["qc"] else ""
        note += " (%d missing)" % r["missing"] if r["missing"] else ""
        note += " (%d <= 0)" % r["not_positive"] if r["not_positive"] else ""
        print("| %s%s | %d | %s | %s | %s | %.3f | %.3f | %s | %.3f | %.3f | %.3f | %s | %.3f |" % (
            r["name"], note, r["n"], " ".join(map(str, r["annotated"])) or "-",
            " ".join(map(str, r["contest_changes"])) or "-",
            " ".join(map(str, r["perfherder_changes"])) or "-",
            r["contest"]["f1"], r["perfherder"]["f1"], binseg(r["name"], "f1"), r["zero"]["f1"],
            r["contest"]["cover"], r["perfherder"]["cover"], binseg(r["name"], "cover"),
            r["zero"]["cover"]))
    print()

    # The means over the real series; with the paper's figures, over those where every one of
    # its methods has a score (binseg, PELT and BOCPD fail on a series with missing values).
    subsets = [("all %d series" % len(real), real)]
    if paper:
        complete = [r for r in real if r["name"] in paper[("default", "f1")] and all(
            paper[(e, m)][r["name"]].get(method) is not None
            for e in ("default", "oracle") for m in ("f1", "cover") for method in PAPER_METHODS)]
        subsets = [("the %d series where TCPDBench's methods all have a score" % len(complete),
                    complete)] + subsets
        equal = {m: sum(r["zero"][m] == paper[("default", m)][r["name"]]["zero"]
                        for r in real if r["name"] in paper[("default", m)]) for m in ("f1", "cover")}
        diff = max(abs(r["zero"][m] - paper[("default", m)][r["name"]]["zero"])
                   for r in real if r["name"] in paper[("default", "f1")] for m in ("f1", "cover"))
        print("zero checked against TCPDBench's: F1 equal on %d of %d series, cover on %d of %d "
              "(largest difference %.3g)" % (equal["f1"], len(real), equal["cover"], len(real), diff))
        print()
    for label, subset in subsets:
        names = [r["name"] for r in subset]
        print("Means over %s (univariate; quality control left out, as the paper does):"
              % label)
        print()
        print("| method | default cover | default F1 | oracle cover | oracle F1 |")
        print("|---|---:|---:|---:|---:|")
        for method, label_of in (("contest", "contest (its defaults)"),
                                 ("perfherder", "perfherder_alerts (its defaults)"),
                                 ("zero", "zero (scored here)")):
            print("| %s | %.3f | %.3f | - | - |" % (
                label_of, mean([r[method]["cover"] for r in subset]),
                mean([r[method]["f1"] for r in subset])))
        if paper:
            for method in PAPER_METHODS:
                cells = []
                for e in ("default", "oracle"):
                    for m in ("cover", "f1"):
                        got = [paper[(e, m)][n][method] for n in names]
                        cells.append("%.3f" % mean(got) if None not in got else "-")
                print("| %s (TCPDBench) | %s |" % (method, " | ".join(cells)))
        print()


if __name__ == "__main__":
    main()
