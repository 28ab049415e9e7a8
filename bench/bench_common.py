"""What the Python benches share: finding the contest binary they measure, the paired test
of log ratios they state calls and minimum detectable effects with, and the figures of a run
that cancel the machine's speed."""
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def contest_binary(bench):
    """The contest to measure: $CONTEST, else the build tree's; exits naming `bench` if absent."""
    path = os.environ.get("CONTEST", os.path.join(HERE, "..", "build", "contest"))
    if not os.access(path, os.X_OK):
        sys.exit("%s: no contest binary at %s (make, or CONTEST=...)" % (bench, path))
    return path


POWER = 0.8


def normal_quantile(p):
    return statistics.NormalDist().inv_cdf(p)


def t_quantile(p, df):
    """Student's t quantile by the Cornish-Fisher expansion about the normal's
    (Abramowitz & Stegun 26.7.5): within 1% of the exact from 2 degrees of freedom."""
    z = normal_quantile(p)
    if df <= 0:
        return float("nan")
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def t_two_sided_p(t, df):
    """The two-sided p of t on df degrees of freedom, by bisection on t_quantile."""
    t = abs(t)
    if not math.isfinite(t):
        return 0.0
    lo, hi = 0.5, 1 - 1e-12
    for _ in range(100):
        mid = (lo + hi) / 2
        if t_quantile(mid, df) < t:
            lo = mid
        else:
            hi = mid
    return 2 * (1 - lo)


def paired_log_test(diffs, alpha):
    """A paired t test of per-pair log ratios `diffs`: pairs, change %, p, the MDE % at 80%
    power, called (p < alpha). None below 3 pairs."""
    n = len(diffs)
    if n < 3:
        return None
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / math.sqrt(n)
    df = n - 1
    t = mean / se if se > 0 else (0.0 if mean == 0 else float("inf"))
    p = t_two_sided_p(t, df) if se > 0 else (1.0 if mean == 0 else 0.0)
    mde = (t_quantile(1 - alpha / 2, df) + t_quantile(POWER, df)) * se
    return {"pairs": n, "change_pct": 100 * math.expm1(mean), "p": p,
            "mde_pct": 100 * math.expm1(mde), "called": p < alpha}


def signed_rank_critical(n, alpha):
    """The Wilcoxon signed-rank statistic's two-sided critical value for n pairs: the largest
    c with P(T <= c) <= alpha / 2 under the null (-1 when there is none: 5 pairs and fewer at
    5%); exact (the count of subsets of 1..n by their sum) up to 200 pairs, the normal
    approximation above."""
    if n > 200:
        return int(math.floor(n * (n + 1) / 4 -
                              statistics.NormalDist().inv_cdf(1 - alpha / 2) *
                              math.sqrt(n * (n + 1) * (2 * n + 1) / 24)))
    top = n * (n + 1) // 2
    counts = [1] + [0] * top
    for rank in range(1, n + 1):
        for total in range(top, rank - 1, -1):
            counts[total] += counts[total - rank]
    every, below, c = 2 ** n, 0, -1
    while c + 1 <= top and (below + counts[c + 1]) / every <= alpha / 2:
        below += counts[c + 1]
        c += 1
    return c


def paired_rank_test(diffs, alpha):
    """The rank-based twin of paired_log_test, for figures with heavy tails: the
    Hodges-Lehmann estimate of the log ratios' centre (the median of their Walsh averages)
    and its distribution-free confidence interval from the Wilcoxon signed-rank statistic
    (normal approximation of its quantile); called when the interval leaves 0. Its MDE is
    the interval's half-width times (z(1 - alpha/2) + z(0.8)) / z(1 - alpha/2), as the t
    test's is its standard error times the same sum. None below 6 pairs (the interval
    cannot leave 0 at 5% with fewer)."""
    n = len(diffs)
    if n < 6:
        return None
    walsh = sorted((diffs[i] + diffs[j]) / 2 for i in range(n) for j in range(i, n))
    z = statistics.NormalDist().inv_cdf(1 - alpha / 2)
    # The interval's ends: the (c+1)-th Walsh average from each end, so that it
    # leaves out 0 exactly when T+ or T- is at most c (the signed-rank test).
    k = signed_rank_critical(n, alpha)
    if k < 0:
        return None
    lo, hi = walsh[k], walsh[len(walsh) - 1 - k]
    half = (hi - lo) / 2
    mde = half * (z + statistics.NormalDist().inv_cdf(POWER)) / z
    return {"pairs": n, "change_pct": 100 * math.expm1(statistics.median(walsh)),
            "ci_pct": [100 * math.expm1(lo), 100 * math.expm1(hi)],
            "mde_pct": 100 * math.expm1(mde), "called": lo > 0 or hi < 0}


def speed_cancelling_figures(run):
    """A run's Time (wall_s), its workload's CPU time (user + sys: the same work every run,
    so it moves with the machine's speed and with the work) and Time per CPU second (wall /
    CPU, 100 / CPU%: a machine uniformly slower stretches both, so it cancels; it moves with
    the time the workload waited, not with its work). Where the CPU time is not recorded,
    Time alone."""
    out = {}
    wall = run.get("wall_s", 0)
    if not wall > 0:
        return out
    out["Time"] = wall
    cpu = (run.get("user_s") or 0) + (run.get("sys_s") or 0)
    if cpu > 0:
        out["CPU"] = cpu
        out["Time per CPU s"] = wall / cpu
    return out
