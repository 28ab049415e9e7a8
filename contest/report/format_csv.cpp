// CSV for spreadsheets and scripts: one row per label and load with every
// figure the model has (RFC 4180 quoting; empty where a figure is undefined).
#include <string>
#include <vector>

#include "contest/report/formats.h"
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

struct Measure {
    const char* prefix;
    const stats::Summary Cell::*summary;
};

constexpr Measure kMeasures[] = {
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

std::string csv_line(const std::vector<std::string>& fields) {
    return join(fields, ",", quote) + "\n";
}

}  // namespace

std::string format_csv(const ReportModel& model, const ReportOptions&) {
    std::vector<std::string> header = {"load", "label", "baseline", "runs_ok", "runs_failed"};
    for (const auto& m : kMeasures)
        for (const char* f : kSummaryFields) header.push_back(std::string(m.prefix) + "_" + f);
    for (const char* f :
         {"loads_unit", "ratio", "ratio_ci95_half", "change_pct", "welch_t", "welch_df", "welch_p",
          "mann_whitney_u", "mann_whitney_z", "mann_whitney_p", "significant", "alpha"})
        header.push_back(f);
    std::string out = csv_line(header);

    for (const auto& block : model.blocks) {
        for (const auto& cell : block.cells) {
            std::vector<std::string> row = {block.load, cell.label, cell.is_baseline ? "yes" : "no",
                                            std::to_string(cell.time.n),
                                            std::to_string(cell.failed)};
            for (const auto& m : kMeasures) append_summary(row, cell.*(m.summary));
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
            out += csv_line(row);
        }
    }
    return out;
}

}  // namespace contest
