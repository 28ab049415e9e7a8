#pragma once
// Pressure stall information (/proc/pressure/{cpu,memory,io}: the time some
// or all non-idle tasks waited for the resource, cumulative µs) and the
// /proc/vmstat counters that explain memory behaviour (reclaim scans and
// steals, swap-ins/outs, allocation stalls, compaction, THP faults): a
// snapshot at each end of a window and the difference.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace contest {

struct PsiResource {
    std::optional<std::uint64_t> some_us, full_us;  // total=; nullopt when the line is absent
};

struct PsiTotals {
    bool available = false;
    std::string reason;  // why not, when not available
    PsiResource cpu, memory, io;
};

// One /proc/pressure file's text; nullopt when it has neither line.
std::optional<PsiResource> parse_psi(const std::string& text);
PsiTotals read_psi();

// The counters of interest in /proc/vmstat's text, by name.
std::map<std::string, std::uint64_t> parse_vmstat(const std::string& text);

struct PressureSnapshot {
    PsiTotals psi;
    std::map<std::string, std::uint64_t> vmstat;
    std::string vmstat_reason;  // why vmstat is empty, when it is
};
PressureSnapshot read_pressure();

// later - earlier for a cumulative counter; nullopt when it went backwards
// (a counter reset or wrap: not a negative amount of work).
std::optional<std::uint64_t> counter_delta(std::uint64_t earlier, std::uint64_t later);

// The window's PSI totals (µs, and % of the window's wall time when
// window_s > 0) and vmstat deltas. A delta that went backwards is null and
// named under "resets".
nlohmann::json pressure_delta(const PressureSnapshot& start, const PressureSnapshot& end,
                              double window_s);

}  // namespace contest
