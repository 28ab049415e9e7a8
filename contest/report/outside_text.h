#pragma once
// The tests net of outside work (analysis/outside_tests.h) as the formats
// print them: beside the table, one row per load and test, whichever basis
// is not the verdict of record, with the fit that made it (its slopes, how
// much of the spread it explained, or why it was not applied).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/report_model.h"

namespace contest {

struct OutsideRow {
    std::string load, label;
    std::string what;              // "Time", "Ratio", "Ratio to no_load"
    const Test* record = nullptr;  // the verdict of record
    const Test* other = nullptr;   // on the other basis; null where not applied
    const OutsideFit* fit = nullptr;
};

// Every fit of the model, in block order: Time and Ratio against the
// baseline of `label` (every non-baseline label when empty), and with
// `load_effects` each label's Ratio to its no_load.
std::vector<OutsideRow> outside_rows(const ReportModel& model, const std::string& label,
                                     bool load_effects);
// "Net of outside work (...), beside the raw verdict of record (--adjust
// outside makes it the verdict):"
std::string outside_heading(const ReportModel& model);
// The cells of one row: load, label, what, the other basis' effect and its
// CI, p-adj, finding and could-see, the fit.
std::vector<std::string> outside_cells(const OutsideRow& row, const ReportModel& model);
// The net effect's 95% CI from the fit: "[-5.0%, +1.3%]".
std::string net_ci_text(const OutsideFit& fit);
// The heading and the rows, aligned (text) or as a table (markdown); the
// label column only `with_label`; "" without a row.
std::string outside_text(const ReportModel& model, const std::vector<OutsideRow>& rows,
                         bool with_label);
std::string outside_markdown(const ReportModel& model, const std::vector<OutsideRow>& rows,
                             bool with_label);
// CSV: Time on the other basis and its fit, and why the Ratio was not
// adjusted; the columns and their cells (empty without them).
inline constexpr const char* kOutsideCsvColumns[] = {
    "time_other_basis",     "time_other_change_pct",  "time_other_p_adjusted",
    "time_other_mde_pct",   "time_outside_explained", "time_outside_why_not",
    "ratio_outside_why_not"};
void append_outside_csv(std::vector<std::string>& row, const VersusBaseline* v);
// The fit in full, for JSON.
nlohmann::json outside_fit_json(const OutsideFit& fit);

}  // namespace contest
