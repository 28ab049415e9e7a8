#pragma once
// The few formatting rules the exporters (outputs.h) share, so "-",
// p-values and units read the same everywhere.
#include <string>
#include <vector>

#include "contest/analysis/report_model.h"
#include "contest/sys/number_text.h"

namespace contest {

// Of the JSON that report --format json and compare --format json print.
inline constexpr int kReportSchemaVersion = 1;

// "0.0004", "<0.0001"; "-" when there is no p-value.
std::string format_p(double p);
// "+1.8%", "-33.4%".
std::string signed_percent(double pct);
// Decimals of the Time column: 1 (contest's) unless some mean is under 10 s
// (a small synthetic workload), where a tenth is too coarse to compare.
int time_decimals(const ReportModel& model);
// Decimals of a block's Loads column: counts in the millions (ring hops) get
// none, so the column stays narrow and its digits line up.
int loads_decimals(const LoadBlock& block);
// "ring hops", or "none (no load runs)" for no_load and cacherun.
std::string unit_description(const LoadBlock& block);
// The mark after a row: "*" Time significant, "^" Ratio significant, "?"
// Time not judged, "" otherwise.
std::string significance_mark(const Cell& cell);
// The one-line legend of the marks; "" with a single label.
std::string significance_legend(const ReportModel& model);
// "Holm over 23 tests, changes under 1% ignored": how the p-values were read.
std::string correction_summary(const ReportModel& model);
// "a, b, c".
std::string join_list(const std::vector<std::string>& items);
// Every test of the model, one row each: load, label, what, method,
// statistic, p, adjusted p, effect, could see (detectable_text), verdict
// ("yes", "no", "below 1%").
std::vector<std::vector<std::string>> test_rows(const ReportModel& model);
// The methods the model's tests of `what` ("Time", "Ratio", "load effect")
// used, as method_name (report_notes.h) names them: one name when every row
// used the same, else each with the rows it was used under ("Welch's t-test
// under cpu_load; Mann-Whitney U (timed-out runs slowest) under io_load");
// `none` when no row has such a test.
std::string methods_used(const ReportModel& model, const std::string& what,
                         const std::string& none);
// What text and markdown name as Time's test where no row had the runs for
// one: the test a row of finished runs gets.
inline constexpr const char* kDefaultTimeTest = "Welch's t-test";
// The smallest true change a test could see (Test::mde_pct): "±7.4%", "±1.2
// points" (missed%); "-" when unknown; "nothing" when no change would be seen.
std::string detectable_text(const Test& t);
// What a "no difference" says beside it: "this comparison could see ±7.4% or
// more"; "" for a test that found one or has no resolution.
std::string could_see(const Test& t);
// A test's verdict as test_rows has it.
std::string test_verdict(const Test& t, const ReportModel& model);
// JSON: six significant digits, null where undefined; a test in full.
nlohmann::json json_number(double value);
nlohmann::json test_json(const Test& t);
// The noise-by-level rows (ReportModel::level_noise) as json: one object a
// label, load and measure.
nlohmann::json level_noise_json(const std::vector<LevelNoiseRow>& rows);
nlohmann::json shared_noise_json(const std::vector<SharedNoiseRow>& rows);
// Terminal cells the text takes: "±" one, a CJK character two.
std::size_t display_width(const std::string& s);
// `text` padded with spaces to `width` terminal cells, on the left
// (right-aligned) or on the right; as it is when it is that wide already.
std::string right_aligned(const std::string& text, std::size_t width);
std::string left_aligned(const std::string& text, std::size_t width);
// Pads cells into columns (widths over all rows, two spaces between), right-
// aligned where `right` says so; returns one line per row, trailing spaces
// trimmed. Rows may be shorter than others (missing cells are empty).
std::vector<std::string> align_columns(const std::vector<std::vector<std::string>>& rows,
                                       const std::vector<bool>& right);
// text with, in the formats people read (text, markdown, lkp, normalized), a loud banner
// before it when some labels' times are emulated (model.emulated_labels).
std::string with_emulated_banner(const ReportModel& model, const std::string& format,
                                 const std::string& text);

}  // namespace contest
