// CSV for spreadsheets and scripts: one row per label and load with every
// figure the model has (RFC 4180 quoting; empty where a figure is undefined).
#include <string>
#include <vector>

#include "contest/report/formats.h"
#include "contest/report/observe_tables.h"
#include "contest/report/outside_text.h"
#include "contest/report/report_options.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

std::string quote(const std::string& field) {
    if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
    std::string out = "\"";
    for (char c : field) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

struct CsvMeasure {
    const char* prefix;
    const stats::Summary Cell::*summary;
};

constexpr CsvMeasure kMeasures[] = {
    {"time_s", &Cell::time},
    {"cpu_pct", &Cell::cpu_pct},
    {"loads", &Cell::load_units},
    {"lcpu_pct", &Cell::load_cpu_pct},
};

constexpr const char* kSummaryFields[] = {"mean", "median", "sd",       "min",
                                          "max",  "cv_pct", "ci95_half"};

void append_summary(std::vector<std::string>& row, const stats::Summary& s) {
    for (double v : {s.mean, s.median, s.sd, s.min, s.max, s.cv * 100, s.ci95_half})
        row.push_back(six_digits(v));
}

// The columns from ratio_method on: the paired Ratio and the corrected tests.
void append_tests(std::vector<std::string>& row, const Cell& cell, const ReportModel& model) {
    const auto& e = cell.ratio_estimate;
    const auto& v = cell.versus;
    const Test* load_effect = e && e->test ? &*e->test : nullptr;
    const Test* time = v && v->time_test ? &*v->time_test : nullptr;
    const Test* ratio = v && v->ratio_test ? &*v->ratio_test : nullptr;
    row.push_back(!e ? "" : e->paired ? "paired" : "unpaired");
    row.push_back(e ? std::to_string(e->pairs) : "");
    row.push_back(load_effect ? six_digits(load_effect->p) : "");
    row.push_back(load_effect ? six_digits(load_effect->p_adjusted) : "");
    row.push_back(time ? time->method : "");
    row.push_back(time ? six_digits(time->p_adjusted) : "");
    row.push_back(ratio ? six_digits(ratio->effect_pct) : "");
    row.push_back(ratio ? six_digits(ratio->p) : "");
    row.push_back(ratio ? six_digits(ratio->p_adjusted) : "");
    row.push_back(!ratio ? "" : v->ratio_significant ? "yes" : "no");
    row.push_back(stats::correction_name(model.correction));
    row.push_back(six_digits(model.min_effect_pct));
    row.push_back(time ? six_digits(time->mde_pct) : "");
    row.push_back(ratio ? six_digits(ratio->mde_pct) : "");
    append_outside_csv(row, v ? &*v : nullptr);
    const Test* load_other = e && e->test_other ? &*e->test_other : nullptr;
    row.push_back(load_other ? six_digits(load_other->p_adjusted) : "");
    row.push_back(cell.outside_spread ? six_digits(cell.outside_spread->explained) : "");
}

std::string csv_line(const std::vector<std::string>& fields) {
    return join(fields, ",", quote) + "\n";
}

// The latency rows, a table of their own: one row per load, label and probe.
std::string latency_csv(const ReportModel& model) {
    std::string out = csv_line({"load",
                                "label",
                                "probe",
                                "runs",
                                "samples",
                                "pooled_histogram",
                                "p50_ns",
                                "p99_ns",
                                "p99_9_ns",
                                "max_ns",
                                "missed_pct",
                                "cpu_got_pct",
                                "cpu_wanted_pct",
                                "probe_cpu_pct",
                                "p99_p_adjusted",
                                "p99_significant",
                                "missed_p_adjusted",
                                "missed_significant",
                                "p99_mde_pct",
                                "missed_mde_points"});
    auto p_adj = [](const std::optional<Test>& t) { return t ? six_digits(t->p_adjusted) : ""; };
    auto sig = [](const std::optional<Test>& t) {
        return !t ? std::string() : t->significant ? "yes" : "no";
    };
    auto mde = [](const std::optional<Test>& t) { return t ? six_digits(t->mde_pct) : ""; };
    for (const auto& block : model.blocks)
        for (const auto& r : block.latency)
            out += csv_line({block.load,
                             r.label,
                             r.probe,
                             std::to_string(r.runs),
                             std::to_string(r.samples),
                             r.pooled ? "yes" : "no",
                             six_digits(r.p50_ns),
                             six_digits(r.p99_ns),
                             six_digits(r.p999_ns),
                             six_digits(r.max_ns),
                             six_digits(r.missed_pct),
                             six_digits(r.cpu_got_pct),
                             six_digits(r.cpu_wanted_pct),
                             six_digits(r.probe_cpu_pct),
                             p_adj(r.p99_test),
                             sig(r.p99_test),
                             p_adj(r.missed_test),
                             sig(r.missed_test),
                             mde(r.p99_test),
                             mde(r.missed_test)});
    return out;
}

// The main table's columns: what the row is, each measure's summary, then
// the comparison with the baseline.
std::vector<std::string> csv_header() {
    std::vector<std::string> header = {"load",    "label",       "baseline",
                                       "runs_ok", "runs_failed", "runs_timed_out"};
    for (const auto& m : kMeasures)
        for (const char* f : kSummaryFields) header.push_back(std::string(m.prefix) + "_" + f);
    for (const char* f : {"loads_unit",       "ratio",
                          "ratio_ci95_half",  "change_pct",
                          "welch_t",          "welch_df",
                          "welch_p",          "mann_whitney_u",
                          "mann_whitney_z",   "mann_whitney_p",
                          "significant",      "alpha",
                          "ratio_method",     "ratio_pairs",
                          "load_effect_p",    "load_effect_p_adjusted",
                          "time_test",        "time_p_adjusted",
                          "ratio_change_pct", "ratio_p",
                          "ratio_p_adjusted", "ratio_significant",
                          "correction",       "min_effect_pct",
                          "time_mde_pct",     "ratio_mde_pct"})
        header.push_back(f);
    for (const char* f : kOutsideCsvColumns) header.push_back(f);
    header.push_back("load_effect_other_p_adjusted");
    header.push_back("outside_spread_explained");
    return header;
}

// One label under one load, in csv_header's order.
std::vector<std::string> csv_cell_row(const ReportModel& model, const LoadBlock& block,
                                      const Cell& cell) {
    std::vector<std::string> row = {block.load,
                                    cell.label,
                                    cell.is_baseline ? "yes" : "no",
                                    std::to_string(cell.time.n),
                                    std::to_string(cell.failed),
                                    std::to_string(cell.timed_out)};
    for (const auto& m : kMeasures) {
        if (m.summary == &Cell::load_units && !cell.loads_counted)
            row.insert(row.end(), std::size(kSummaryFields), "");  // a command that counts nothing
        else
            append_summary(row, cell.*(m.summary));
    }
    row.push_back(block.unit);
    row.push_back(cell.ratio ? six_digits(*cell.ratio) : "");
    row.push_back(cell.ratio ? six_digits(cell.ratio_ci95_half) : "");
    const auto& v = cell.versus;
    row.push_back(v ? six_digits(v->change_pct) : "");
    row.push_back(v && v->welch ? six_digits(v->welch->t) : "");
    row.push_back(v && v->welch ? six_digits(v->welch->df) : "");
    row.push_back(v && v->welch ? six_digits(v->welch->p) : "");
    row.push_back(v && v->mann_whitney ? six_digits(v->mann_whitney->u) : "");
    row.push_back(v && v->mann_whitney ? six_digits(v->mann_whitney->z) : "");
    row.push_back(v && v->mann_whitney ? six_digits(v->mann_whitney->p) : "");
    row.push_back(!v ? "" : !v->judged ? "not judged" : v->significant ? "yes" : "no");
    row.push_back(six_digits(model.alpha));
    append_tests(row, cell, model);
    return row;
}

// A --perf or --psi section after a blank line, its first column naming the
// table ("perf", "psi"); empty where nothing was recorded.
std::string csv_observe_table(const ObserveTable& table) {
    std::vector<std::string> head = {"table", "load", "label"};
    head.insert(head.end(), table.columns.begin(), table.columns.end());
    std::string out = "\n" + csv_line(head);
    for (const auto& r : table.rows) {
        std::vector<std::string> cells = {table.name, r.load, r.label};
        for (const auto& cell : r.cells)
            cells.push_back(cell.is_number()   ? six_digits(cell.get<double>())
                            : cell.is_string() ? cell.get<std::string>()
                                               : std::string());
        out += csv_line(cells);
    }
    return out;
}

}  // namespace

std::string format_csv(const ReportModel& model, const ReportOptions& options) {
    // With latency, its table follows the main one after an empty line.
    if (options.latency_only) return model.has_latency() ? latency_csv(model) : "";
    std::string out = csv_line(csv_header());
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells) out += csv_line(csv_cell_row(model, block, cell));
    for (const auto& table : observe_tables(model, options)) out += csv_observe_table(table);
    if (model.has_latency()) out += "\n" + latency_csv(model);
    return out;
}

}  // namespace contest
