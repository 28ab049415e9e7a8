#pragma once
// The measures a run records besides Time, typed once: each one's name,
// kind, unit and meaning, and where in the run record it is read. "What else
// changed" (measure_changes.h) tests every measure a run recorded, the
// --perf and --psi blocks (contest/report/observe_tables.h) show the means
// of some, and compare's formats and the HTML page say what each means.
//
// How a measure is taken follows from its kind. The compile's own counts
// (its faults and context switches, its perf events) are counts per run:
// every run does the same work, so a count per run is a count per unit of
// work, and dividing it by a wall time that other work on the machine
// stretched would hide a doubled count behind the noise of that time.
// Counts of the machine as a whole (vmstat, the disk) are rates, per second
// of the window they were counted over, as a longer window counts more of
// them. Percentages, times and sizes are taken as recorded.
#include <map>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "contest/result/result_file.h"

namespace contest {

enum class MeasureKind {
    count,       // a count per run
    rate,        // a count per second
    percentage,  // a share of a CPU, of the time or of the periods, in %
    time,        // a duration
    size,        // an amount of memory
    ratio,       // one count over another (IPC, a miss rate)
};

// Where in a run record a measure is read.
enum class MeasureSource {
    record,        // a field of the run record itself (user_s, minor_faults, ...)
    perf_event,    // perf.events.<key>: a counted event's value
    perf_derived,  // perf.<key>: a rate of two events, `needs` the one whose absence says why not
    psi,           // timeline.totals.psi.<key>: "resource/kind"
    vmstat,        // timeline.totals.vmstat.<counter>, per second of the window
    disk,          // timeline.totals.disk.<key>, per second of the window
    machine_cpu,   // timeline.totals.cpu_pct_of_machine.<what>
    latency,       // latency.<probe>: its p99 or missed%
};

struct Measure {
    // As "what else changed" names it: "perf_context_switches". A family of
    // measures has its variable part in angle brackets: "vmstat_<counter>_per_s".
    std::string_view name;
    MeasureKind kind;
    std::string_view unit;     // "s", "%", "KiB", "/s"; "" for a bare count or ratio
    std::string_view meaning;  // words that finish "on new, ... was 2.30x base's"; "" unknown
    MeasureSource source;
    std::string_view key = {};    // in the source (see MeasureSource)
    std::string_view needs = {};  // perf_derived: the event it cannot be without
};

// Every known measure and family, the one table.
std::span<const Measure> measures();
// The measure `name` is, or the family it is of; nullptr for neither.
const Measure* find_measure(std::string_view name);
// The measure called `name`, which the caller knows is in the table;
// std::logic_error otherwise.
const Measure& measure_named(std::string_view name);

// Every measure one run recorded with a finite value, by name, as "what else
// changed" tests them (rates per second of the window, counts per run).
std::map<std::string, double> run_measures(const RunRecord& run);

// One run's figure of a perf or PSI measure as recorded (not per second): a
// number, a string saying why the run has none, or null when the run
// recorded nothing of it.
nlohmann::json measure_reading(const RunRecord& run, const Measure& measure);
// The sum of one run's vmstat deltas over the window for the counters named
// (pgscan_kswapd + pgscan_direct: one figure split by cause), as measure_reading.
nlohmann::json vmstat_reading(const RunRecord& run, std::span<const std::string> counters);

}  // namespace contest
