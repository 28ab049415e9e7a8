#!/usr/bin/env python3
"""What one setting costs the workload: two files of wall times, one a line,
written in interleaved pairs (line i of each is round i). Prints both means,
the difference and its 95% confidence interval, paired (the rounds are
pairs: the machine's drift hits both of a round) and Welch's (as if
unpaired), and whether 0 is inside.

    interleaved_cost.py PLAIN_FILE PLAIN_NAME OTHER_FILE OTHER_NAME
"""
import math
import sys
from statistics import mean, stdev


def t975(df):
    # Student t's 97.5% quantile (Cornish-Fisher, good to 3 digits for df >= 2).
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def main():
    plain_file, plain_name, other_file, other_name = sys.argv[1:5]
    a = [float(x) for x in open(plain_file)]
    b = [float(x) for x in open(other_file)]
    if len(a) < 2 or len(a) != len(b):
        sys.exit(f"interleaved_cost: need two or more pairs, got {len(a)} and {len(b)} runs")
    ma, mb = mean(a), mean(b)
    width = max(len(plain_name), len(other_name))
    print(f"{plain_name:<{width}}  mean {ma:.3f} s over {len(a)} runs (sd {stdev(a):.3f})")
    print(f"{other_name:<{width}}  mean {mb:.3f} s over {len(b)} runs (sd {stdev(b):.3f})")

    d = [y - x for x, y in zip(a, b)]
    md, sd = mean(d), stdev(d)
    half = t975(len(d) - 1) * sd / math.sqrt(len(d))
    print(f"difference, paired by round:  {md:+.3f} s ({md / ma * 100:+.2f}%), "
          f"95% CI [{md - half:+.3f}, {md + half:+.3f}] s")

    va, vb = stdev(a) ** 2 / len(a), stdev(b) ** 2 / len(b)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1)) if se > 0 else 1
    wd = mb - ma
    print(f"difference, Welch (unpaired): {wd:+.3f} s, "
          f"95% CI [{wd - t975(df) * se:+.3f}, {wd + t975(df) * se:+.3f}] s")
    print("within noise (paired CI contains 0)" if md - half <= 0 <= md + half
          else "outside noise: a measurable cost")


if __name__ == "__main__":
    main()
