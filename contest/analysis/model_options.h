#pragma once
// What the report model is built with: which label is the baseline, how
// the rows are told apart, and how the tests behind the marks are read.
// ReportOptions (contest/report/report_options.h) adds how it is rendered.
#include <optional>
#include <string>

#include "contest/analysis/multiple_comparisons.h"

namespace contest {

struct ModelOptions {
    std::optional<std::string> baseline;  // label; default the one that ran first
    double alpha = 0.05;                  // significance level
    // Over all the tests behind one table: holm, bh or none.
    stats::Correction correction = stats::Correction::holm;
    // A difference below this, in %, is never called one, whatever its p.
    double min_effect_pct = 1;
    bool by_host = false;  // --by-host: rows LABEL@host
    // --adjust outside: the tests net of outside work (outside_work.h) are
    // the verdict of record, the raw ones beside; by default the other way.
    bool adjust_outside = false;
};

}  // namespace contest
