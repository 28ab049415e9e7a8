#!/usr/bin/env bash
# `contest latency` (cyclic probe) against cyclictest (Debian's rt-tests) with
# the same interval, policy, priority and duration, alone and next to
# cpu_load, in turns (contest, cyclictest, contest, ...), so drift of the
# machine hits both. Prints the median and p99 of each run and, per
# condition, contest / cyclictest three ways: over every sample of the rounds
# (histograms pooled), as the median of each tool's runs, and as the median
# of the per-round ratios (goal: within 20%). A 10 s run's p99 is its 100th
# worst wake-up: one noisy second of the host moves it, hence the rounds.
#
# Both are read the same way: nearest rank over every sample at 1 us
# resolution (cyclictest's histogram is 1 us buckets; contest's percentiles
# are the lower edge of their 1 us bucket).
# Environment: CONTEST (binary, default build/contest), DURATION (s per run,
# 10), INTERVAL_US (1000), POLICY (other | fifo | rr, other), PRIORITY (for
# fifo/rr, 50), ROUNDS (2), WORKDIR (cpu_load's scratch).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CONTEST=${CONTEST:-$here/../build/contest}
DURATION=${DURATION:-10}
INTERVAL_US=${INTERVAL_US:-1000}
POLICY=${POLICY:-other}
PRIORITY=${PRIORITY:-50}
ROUNDS=${ROUNDS:-2}
WORKDIR=${WORKDIR:-${XDG_CACHE_HOME:-$HOME/.cache}/contest}

[ -x "$CONTEST" ] || { echo "no contest binary at $CONTEST (make, or set CONTEST)" >&2; exit 3; }
command -v jq >/dev/null || { echo "jq missing (apt-get install jq)" >&2; exit 3; }
command -v cyclictest >/dev/null ||
    { echo "cyclictest missing (apt-get install rt-tests)" >&2; exit 3; }
# cyclictest's -p switches the policy to fifo unless --policy comes after it,
# and -p 0 then becomes priority 2: other gets no -p at all. --laptop: leave
# /dev/cpu_dma_latency alone, as contest does (cyclictest otherwise holds the
# CPUs out of idle states for the whole machine while it runs).
if [ "$POLICY" = other ]; then ct_sched=(--policy=other); else ct_sched=(-p "$PRIORITY" --policy="$POLICY"); fi

scratch=$(mktemp -d)
load_pid=
cleanup() {
    [ -n "$load_pid" ] && kill -INT "$load_pid" 2>/dev/null && wait "$load_pid" 2>/dev/null
    rm -rf "$scratch"
}
trap cleanup EXIT

# contest's own cpu_load, for cyclictest's runs next to it: the same load
# contest latency --load cpu_load starts.
start_cpu_load() {
    "$CONTEST" load cpu_load --duration $((DURATION + 30)) --workdir "$WORKDIR" \
        >/dev/null 2>"$scratch/load.err" &
    load_pid=$!
    sleep 1  # as contest latency gives its load
}
stop_cpu_load() {
    kill -INT "$load_pid" 2>/dev/null || true
    wait "$load_pid" 2>/dev/null || true
    load_pid=
}

# "median_us p99_us" of one contest run.
contest_run() {
    local load_args=()
    [ "$1" = cpu_load ] && load_args=(--load cpu_load --workdir "$WORKDIR")
    "$CONTEST" latency --duration "$DURATION" --interval-us "$INTERVAL_US" --policy "$POLICY" \
        --priority "$PRIORITY" --format json "${load_args[@]}" >"$scratch/c.json" \
        2>>"$scratch/contest.err"
    # Its histogram, as "us count" lines, into the condition's pool.
    jq -r '.latency.histogram.bins[] | "\(.[0] / 1000 | floor) \(.[1])"' "$scratch/c.json" \
        >>"$scratch/pool.$1.contest"
    jq -r '.latency.percentiles_ns | "\(."50.00" / 1000) \(."99.00" / 1000)"' "$scratch/c.json"
}

# contest's probe runs with 1 ns timer slack. cyclictest leaves an ordinary
# (other) thread at the default 50 us, by which the kernel may defer each of
# its wake-ups by design, and setting the slack before exec does not stick:
# the kernel resets it to the default when cyclictest sets its threads'
# policy. So it is set from outside, on every thread, once the measurement
# thread is running (a few of the first of ~10000 samples may miss it).
# Real-time threads have no slack either way.
slack_1ns_for() {
    local pid=$1 i t
    for i in $(seq 200); do
        [ "$(ls /proc/"$pid"/task 2>/dev/null | wc -l)" -ge 2 ] && break
        sleep 0.005
    done
    sleep 0.02  # past the thread's own sched_setscheduler
    for t in /proc/"$pid"/task/*; do echo 1 >/proc/"${t##*/}"/timerslack_ns 2>/dev/null || true; done
}

# "median_us p99_us" of one cyclictest run, from its 1 us histogram.
cyclictest_run() {
    [ "$1" = cpu_load ] && start_cpu_load
    cyclictest -q -m --laptop -t 1 -i "$INTERVAL_US" "${ct_sched[@]}" -D "$DURATION" \
        -h 100000 >"$scratch/ct.out" 2>"$scratch/ct.err" &
    local ct=$!
    [ "$POLICY" = other ] && slack_1ns_for "$ct"
    wait "$ct"
    grep -v cpu_dma_latency "$scratch/ct.err" >&2 || true
    [ "$1" = cpu_load ] && stop_cpu_load
    # Its histogram as "us count" lines (overflows at 100000 us), pooled too.
    awk '/^[0-9]+[ \t]+[0-9]+/ { if ($2 > 0) print $1 + 0, $2 + 0 }
         /Histogram Overflows/ { if ($NF > 0) print 100000, $NF + 0 }' "$scratch/ct.out" |
        tee -a "$scratch/pool.$1.cyclictest" | percentiles
}

# "median_us p99_us" of "us count" lines: nearest rank over every sample.
percentiles() {
    sort -n | awk '{ us[NR] = $1; n[NR] = $2; total += $2 }
        END {
            r50 = int((total * 50 + 99) / 100); r99 = int((total * 99 + 99) / 100)
            seen = 0; m = "-"; p = "-"
            for (i = 1; i <= NR; i++) {
                seen += n[i]
                if (m == "-" && seen >= r50) m = us[i]
                if (p == "-" && seen >= r99) { p = us[i]; break }
            }
            if (p == 100000) p = ">100000"
            print m, p
        }'
}

echo "machine: $(nproc) CPUs, $(uname -r); interval ${INTERVAL_US} us, policy $POLICY" \
    "$( [ "$POLICY" = other ] || echo "priority $PRIORITY"), ${DURATION} s a run, $ROUNDS rounds"
printf '%-10s %-6s %-11s %10s %10s\n' condition round tool median_us p99_us
for round in $(seq 1 "$ROUNDS"); do
    for cond in no_load cpu_load; do
        read -r cm cp < <(contest_run "$cond")
        printf '%-10s %-6s %-11s %10s %10s\n' "$cond" "$round" contest "$cm" "$cp"
        echo "$cond $round contest $cm $cp" >>"$scratch/runs"
        read -r tm tp < <(cyclictest_run "$cond")
        printf '%-10s %-6s %-11s %10s %10s\n' "$cond" "$round" cyclictest "$tm" "$tp"
        echo "$cond $round cyclictest $tm $tp" >>"$scratch/runs"
    done
done
# Three summaries, as a noisy host hurts each differently: every sample
# pooled (one bad run weighs in full), the median of the runs' own figures,
# and the median of contest / cyclictest within each round (the rounds are
# pairs: the machine's drift hits both of a round).
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Column $3 (4: median, 5: p99) of condition $1's runs of tool $2.
runs_column() { awk -v c="$1" -v t="$2" -v col="$3" '$1 == c && $3 == t { print $col }' "$scratch/runs"; }
# Per round of condition $1: contest's figure in column $2 (4: median, 5:
# p99) over cyclictest's, one a line.
per_round_ratios() {
    awk -v c="$1" -v col="$2" '$1 == c { v[$2, $3] = $col } END { for (k in v) { split(k, a, SUBSEP)
            if (a[2] == "contest" && v[a[1], "cyclictest"] > 0) print v[k] / v[a[1], "cyclictest"] } }' \
        "$scratch/runs"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo
printf '%-10s %-11s %14s %14s %16s %16s\n' condition tool pooled_med_us pooled_p99_us median_of_runs p99_median_runs
for cond in no_load cpu_load; do
    for tool in contest cyclictest; do
        read -r m p < <(percentiles <"$scratch/pool.$cond.$tool")
        rm_=$(runs_column "$cond" "$tool" 4 | median)
        rp=$(runs_column "$cond" "$tool" 5 | median)
        printf '%-10s %-11s %14s %14s %16s %16s\n' "$cond" "$tool" "$m" "$p" "$rm_" "$rp"
        eval "${tool}_m=$m ${tool}_p=$p ${tool}_rm=$rm_ ${tool}_rp=$rp"
    done
    pm=$(per_round_ratios "$cond" 4 | median)
    pp=$(per_round_ratios "$cond" 5 | median)
    # shellcheck disable=SC2154
    echo "$cond contest/cyclictest: pooled median $(ratio "$contest_m" "$cyclictest_m")," \
        "p99 $(ratio "$contest_p" "$cyclictest_p"); median of runs $(ratio "$contest_rm" "$cyclictest_rm")," \
        "p99 $(ratio "$contest_rp" "$cyclictest_rp"); median of per-round ratios $(ratio "$pm" 1), p99 $(ratio "$pp" 1)"
done
