#include "contest/analysis/report_model.h"

#include <cmath>
#include <limits>

namespace contest {

std::vector<double> Cell::ok_wall_times() const {
    std::vector<double> out;
    for (const auto& sr : runs)
        if (sr.run.ok()) out.push_back(sr.run.wall_s);
    return out;
}

std::vector<double> Cell::wall_times_censored() const {
    std::vector<double> out = ok_wall_times();
    for (const auto& sr : runs)
        if (sr.run.timed_out()) out.push_back(std::numeric_limits<double>::infinity());
    return out;
}

std::vector<RoundTime> Cell::round_times() const {
    std::vector<RoundTime> out;
    for (const auto& sr : runs)
        if (sr.run.ok() || sr.run.timed_out())
            out.push_back({sr.file, sr.vary_group, sr.round, sr.run.ok() ? sr.run.wall_s : 0,
                           sr.run.timed_out()});
    return out;
}

std::vector<RoundValue> Cell::round_log_times() const {
    std::vector<RoundValue> out;
    for (const auto& sr : runs)
        if (sr.run.ok() && sr.run.wall_s > 0 && !sr.vary_group.empty())
            out.push_back({sr.vary_group, sr.round, std::log(sr.run.wall_s)});
    return out;
}

std::string Cell::runs_text() const {
    return std::to_string(time.n) + (failed ? "+" + std::to_string(failed) + "F" : "");
}

const LabelInfo* ReportModel::find_label(const std::string& label) const {
    for (const auto& l : labels)
        if (l.label == label) return &l;
    return nullptr;
}

const Cell* ReportModel::find_cell(const std::string& load, const std::string& label) const {
    for (const auto& block : blocks)
        if (block.load == load)
            for (const auto& cell : block.cells)
                if (cell.label == label) return &cell;
    return nullptr;
}

bool ReportModel::any_ratio_tested() const {
    for (const auto& block : blocks)
        for (const auto& cell : block.cells)
            if (cell.versus && cell.versus->ratio_test) return true;
    return false;
}

bool ReportModel::any_unjudged() const {
    for (const auto& block : blocks)
        for (const auto& cell : block.cells)
            if (cell.versus && !cell.versus->judged) return true;
    return false;
}

bool ReportModel::has_latency() const {
    for (const auto& block : blocks)
        if (!block.latency.empty()) return true;
    return false;
}

}  // namespace contest
