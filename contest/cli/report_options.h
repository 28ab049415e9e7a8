#pragma once
// The options `report` and `compare` share: how significance is judged.
#include <string>

#include <boost/program_options.hpp>

#include "contest/report/report.h"

namespace contest {

// --alpha, --correction, --min-effect into `options`; `correction` holds
// the name until check_judging_options parses it.
void add_judging_options(boost::program_options::options_description& od, ReportOptions& options,
                         std::string& correction);
// Throws UsageError naming the option that is out of range.
void check_judging_options(ReportOptions& options, const std::string& correction);
// UsageError unless format is text, markdown, csv or json (--format of
// report and compare).
void check_table_format(const std::string& format);

}  // namespace contest
