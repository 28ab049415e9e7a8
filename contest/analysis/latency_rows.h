#pragma once
// A report's latency rows: for each load, one per label and probe (cyclic,
// audio, video, exec), pooled over the label's successful runs, with the
// tests of p99 and of deadlines missed against the baseline label. The cells
// of the report model hold them (report_model.h); latency_model.h fills them.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/ratio.h"

namespace contest {

struct LatencyBin {
    std::int64_t lower_ns = 0;
    std::uint64_t count = 0;
};

// One stretch of a spike's timeline (--latency-why): who had the probe's
// CPU from at_ns after it should have woken, for ns.
struct SpikePart {
    double at_ns = 0, ns = 0;
    std::string kind;        // "timer expiry", "irq", "softirq", "task", "unexplained", "more"
    std::string name;        // the interrupt's, softirq's or task's comm; "" for none
    long pid = -1;           // a task's
    std::string task_class;  // a task's: "load", "workload", "kernel thread", ...
    std::size_t parts = 0;   // "more": how many stretches it stands for
};

// The latest wake-up of a row's runs, as the trace saw it.
struct WorstSpike {
    double late_ns = 0;
    int run_index = 0;  // the run's index within its load
    int cpu = -1;
    std::vector<SpikePart> timeline;
};

struct LatencyRow {
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    std::string label;
    std::string probe;     // cyclic, audio, video, exec
    std::size_t runs = 0;  // successful runs that carried this probe
    bool pooled = true;    // percentiles from the pooled histogram (else per-run means)
    std::uint64_t samples = 0;
    double p50_ns = kNone, p99_ns = kNone, p999_ns = kNone, max_ns = kNone;
    double missed_pct = kNone;                           // missed over periods, all runs
    double cpu_got_pct = kNone, cpu_wanted_pct = kNone;  // audio, video: mean over runs
    double probe_cpu_pct = kNone;                        // the probe's own CPU, mean over runs
    // Audio, video: the rate of the slowest 1% of frames and the nominal
    // one (frames per second), mean over runs.
    double one_pct_low_fps = kNone, nominal_fps = kNone;
    // --latency-why: the runs' late time by cause, summed ("load tasks",
    // "irq local_timer", "softirq NET_RX", "timer expiry", "unexplained"),
    // over the runs that recorded it, and their late wake-ups.
    std::map<std::string, double> late_by_cause_ns;
    double late_ns = 0;
    std::size_t why_runs = 0;
    std::uint64_t late_wakeups = 0, late_in_trace = 0;  // the split is of those in the trace
    std::optional<WorstSpike> worst_spike;
    std::vector<LatencyBin> bins;  // pooled, ascending
    // The samples of the tests: one per run.
    std::vector<double> run_p99_ns, run_missed_pct;
    // Against the baseline label's row of the same probe (absent for it).
    std::optional<Test> p99_test, missed_test;

    bool p99_significant() const { return p99_test && p99_test->significant; }
    bool missed_significant() const { return missed_test && missed_test->significant; }
};

}  // namespace contest
