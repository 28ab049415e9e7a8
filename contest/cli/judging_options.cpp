#include "contest/cli/judging_options.h"

#include <cmath>

#include "contest/analysis/multiple_comparisons.h"
#include "contest/cli/cli_common.h"
#include "contest/report/outputs.h"
#include "contest/sys/errors.h"

namespace contest {

namespace po = boost::program_options;

bool parse_adjust(const std::string& adjust) {
    if (adjust == "none") return false;
    if (adjust == "outside") return true;
    throw UsageError("--adjust " + adjust + ": expected none or outside");
}

std::vector<TableOption> judging_option_rows(ReportOptions& options, JudgingNames& names) {
    using enum OptionScope;
    // clang-format off
    return {
        {"alpha", host, bounded(&options.alpha, kMinAlpha, kMaxAlpha)->value_name("A")->default_value(0.05, "0.05"),
         "significance level of the marks and the verdict"},
        {"correction", host, checked(&names.correction, [](const std::string& c) { stats::parse_correction(c); })->value_name("C")->default_value("holm"),
         "over all the tests behind one table: holm, bh (Benjamini-Hochberg) or none"},
        {"min-effect", host, bounded(&options.min_effect_pct, 0.0, 100.0)->value_name("PCT")->default_value(1, "1"),
         "a difference below PCT % is never called one, whatever its p"},
        {"adjust", host, checked(&names.adjust, [](const std::string& a) { parse_adjust(a); })->value_name("WHAT")->default_value("none"),
         "the verdict of record: none (the raw tests) or outside (the tests net of other "
         "processes' CPU, steal and the machine's speed where the adjustment applies, the raw "
         "ones with the reason where not; both are always printed)"},
    };
    // clang-format on
}

void check_judging_options(ReportOptions& options, const JudgingNames& names) {
    if (!(options.alpha > 0 && options.alpha < 1))
        throw UsageError("--alpha must be between 0 and 1");
    if (!(options.min_effect_pct >= 0 && std::isfinite(options.min_effect_pct)))
        throw UsageError("--min-effect must be a percentage of 0 or more");
    options.correction = stats::parse_correction(names.correction);
    options.adjust_outside = parse_adjust(names.adjust);
}

void check_table_format(const std::string& format) {
    find_output(format, OutputUse::report);  // throws the UsageError naming the formats
}

void check_compare_format(const std::string& format) {
    find_output(format, OutputUse::compare);
}

}  // namespace contest
