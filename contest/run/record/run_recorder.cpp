#include "contest/run/record/run_recorder.h"

#include <cstdio>

#include "contest/run/record/run_outcome.h"

namespace contest {

RunRecorder::RunRecorder(RunOutcome& out, std::size_t to_take) : out_(out) {
    eta_.total = static_cast<int>(to_take);
}

void RunRecorder::record(LabelRun& label, const std::vector<RunRecord>& runs, double spent_s) {
    for (const auto& rec : runs) {
        if (!rec.ok()) ++out_.failed_runs;
        label.result.runs.push_back(rec);
    }
    label.save();
    eta_.done += static_cast<int>(runs.size());
    eta_.spent_s += spent_s;
}

std::vector<LabelRun>& RunRecorder::labels() {
    return out_.labels;
}

std::string run_summary_line(const std::string& head, const RunRecord& rec) {
    char line[200];
    std::snprintf(line, sizeof line, "%s  %.1f s  CPU %.0f%%", head.c_str(), rec.wall_s,
                  rec.cpu_pct);
    std::string out = line;
    if (!rec.load_unit.empty() && rec.ok()) {
        std::snprintf(line, sizeof line, "  load %.1f %s, %.0f%% CPU", rec.load_units,
                      rec.load_unit.c_str(), rec.load_cpu_pct);
        out += line;
    }
    if (!rec.ok()) out += "  " + std::string(run_status_name(rec.status));
    return out;
}

}  // namespace contest
