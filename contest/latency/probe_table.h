#pragma once
// The latency probes, one entry each, as loads/registry.h is the loads'
// (stress-ng's stressor table, fio's engine ops, in spirit): what the probe
// models, which of the command line's settings are its own, how its options
// are made from them, what it does each period when it is not the plain
// sleeper, what it records beyond the common fields and what the report
// notes of it. Each entry is its own file (cyclic_probe.cpp,
// interbench_probes.cpp, exec_probe.cpp); probe_table.cpp lists them, one
// line each, in the order the reports show them.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "contest/latency/probe_options.h"

namespace contest::latency {

// One setting of the command line that is one probe's own: `contest latency
// --NAME`, `contest run --latency-NAME`.
struct ProbeOwnOption {
    std::string_view name;
    std::string_view help;  // --help's text, after "PROBE: "
    // Empty: the option needs its probe, and both commands refuse it
    // without ("--NAME is the P probe's: add ..."). Otherwise why the other
    // probes take no such setting ("the others keep their own period"):
    // `contest latency` says that when it is given to another probe, and
    // `contest run` leaves it to the probes of its list that take it.
    std::string_view others = {};
};

// What one period gave: its sample, whether it missed its deadline, and the
// work it got done (audio, video).
struct PeriodOutcome {
    std::int64_t sample_ns = 0;
    bool missed = false;
    std::uint64_t done = 0;
    std::int64_t frame_done_ns = 0;  // audio, video: when the frame's work was all done; 0: dropped
    int woke_cpu = -1;               // the CPU it woke on, before its work; -1: not read
};

// A probe's own period, in place of the sleeper's wake and work: called
// after the sleep to the period's start.
using OwnPeriod = std::function<PeriodOutcome()>;

struct ProbeInfo {
    std::string_view name;
    std::string_view help;  // what it models and why, one line
    std::span<const ProbeOwnOption> options = {};
    // The options of its kind from the command line's settings (its period,
    // its share of a CPU, its own settings). Throws UsageError naming the
    // option for a bad value.
    void (*configure)(ProbeOptions&, const ProbeSettings&);
    // Made in the probe's process once it has set itself up, when the probe
    // does not sleep, wake and work; nullptr when it does.
    OwnPeriod (*own_period)(const ProbeOptions&) = nullptr;
    // What its config and its every result keep beyond the common fields.
    nlohmann::json (*record)(const ProbeOptions&) = nullptr;
    // Why a probe stopped before it settled failed, when that says more
    // than "stopped before it settled" (nullptr).
    std::string (*unsettled)(const ProbeOptions&) = nullptr;
    // The latency table's note on the probe, when it is reported; empty
    // for none.
    std::string_view footnote = {};
};

// The probes in the reports' order; the first is the default probe.
std::span<const ProbeInfo* const> probe_table();
const ProbeInfo* find_probe(std::string_view name);
// The table's names joined: "cyclic | audio | video | exec".
std::string probe_names(std::string_view separator);
// Position in the table, for ordering rows; unknown names last.
std::size_t probe_order(std::string_view name);
// "cyclic: wake every N us": an own option's --help text with its probe's
// name. Throws std::logic_error for a name no probe owns.
std::string own_option_help(std::string_view option);

}  // namespace contest::latency
