#pragma once
// What a report is asked for: the model's options and how it is rendered.
// Every exporter takes it (outputs.h); `report` and `compare` fill it from
// their command lines (contest/cli/judging_options.h).
#include <string>

#include "contest/analysis/model_options.h"

namespace contest {

// The model's options (baseline, alpha, correction, minimum effect, --by-host)
// and how the report renders it.
struct ReportOptions : ModelOptions {
    std::string format = "text";  // an exporter's name (outputs.h)
    bool stats = false;           // --stats: extra columns in text
    // --perf, --psi: blocks of the counters and pressure after the table
    // (observe_tables.h).
    bool perf = false, psi = false;
    // Print the model's warnings (noise, too few runs, fingerprints that
    // differ) to stderr, one "contest: warning: ..." line each.
    bool print_warnings = true;
    bool latency_only = false;  // --latency: only the latency blocks
};

}  // namespace contest
