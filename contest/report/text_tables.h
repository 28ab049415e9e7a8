#pragma once
// The pieces of the text report that the mail post (format_post.cpp) prints
// as well: the classic table, the Loads' units, the latency blocks.
#include <string>

#include "contest/analysis/report_model.h"

namespace contest {

// The classic table, a block per load, the columns shared down the page;
// with_stats adds --stats' columns.
std::string text_load_tables(const ReportModel& model, bool with_stats);
// "Loads are counted while the workload runs, in:" and a line per load,
// after an empty line.
std::string text_units(const ReportModel& model);
// Per load, per probe, one row per label. `narrow` leaves out the CPU
// columns (CPU got/wanted, Probe CPU%), for a mail's width.
std::string latency_tables(const ReportModel& model, bool narrow = false);
// The tables, then their legend.
std::string latency_blocks(const ReportModel& model, bool narrow = false);

}  // namespace contest
