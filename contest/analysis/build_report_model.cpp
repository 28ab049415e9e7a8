#include "contest/analysis/build_report_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "contest/analysis/duet_starts.h"
#include "contest/analysis/fingerprint.h"
#include "contest/analysis/latency_model.h"
#include "contest/analysis/level_noise.h"
#include "contest/analysis/min_runs.h"
#include "contest/analysis/outside_tests.h"
#include "contest/analysis/report_notes.h"
#include "contest/analysis/report_warnings.h"
#include "contest/analysis/significance.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "loads/registry.h"

namespace contest {

namespace {

void summarize_cell(Cell& cell) {
    std::vector<double> wall, cpu, units, lcpu;
    for (const auto& sr : cell.runs) {
        if (!sr.run.ok()) {
            ++cell.failed;
            if (sr.run.timed_out()) ++cell.timed_out;
            continue;
        }
        wall.push_back(sr.run.wall_s);
        cpu.push_back(sr.run.cpu_pct);
        units.push_back(sr.run.load_units);
        if (sr.run.load_not_counted) cell.loads_counted = false;
        lcpu.push_back(sr.run.load_cpu_pct);
    }
    cell.time = stats::summarize(wall);
    cell.cpu_pct = stats::summarize(cpu);
    cell.load_units = stats::summarize(units);
    cell.load_cpu_pct = stats::summarize(lcpu);
}

void add_ratio(Cell& cell, const Cell* no_load) {
    if (!no_load || no_load->time.n == 0 || cell.time.n == 0 || !(no_load->time.mean > 0)) return;
    if (&cell == no_load) {
        cell.ratio = 1;
        cell.ratio_ci95_half = 0;
        return;
    }
    cell.ratio_estimate = load_ratio(cell.round_times(), no_load->round_times());
    if (!cell.ratio_estimate) return;
    cell.ratio = cell.ratio_estimate->ratio;
    cell.ratio_ci95_half = cell.ratio_estimate->ci95_half;
}

std::optional<Test> time_test(const Cell& cell, const Cell& base, const VersusBaseline& v) {
    Test t;
    t.what = "Time";
    t.effect_pct = v.change_pct;
    if (cell.timed_out || base.timed_out) {
        const auto mw =
            stats::mann_whitney_u(cell.wall_times_censored(), base.wall_times_censored());
        if (!mw) return std::nullopt;
        t.method = "Mann-Whitney U (timed-out runs slowest)";
        t.statistic = mw->u;
        t.p = mw->p;
        // Of the finished runs, as Welch would see them, widened for a rank
        // test; the timed-out runs are left out of it.
        if (v.welch)
            t.resolution = Resolution{v.welch->se * kRankTestSeFactor, v.welch->df, false,
                                      100 / base.time.mean};
        return t;
    }
    const auto a = cell.round_log_times(), b = base.round_log_times();
    if (auto paired = paired_between_labels(a, b, "Time")) return paired;
    if (!v.welch) return std::nullopt;
    t.method = "Welch t";
    t.statistic = v.welch->t;
    t.df = v.welch->df;
    t.p = v.welch->p;
    t.resolution = Resolution{v.welch->se, v.welch->df, false, 100 / base.time.mean};
    return t;
}

std::vector<RoundValue> round_values(const RatioEstimate& e) {
    std::vector<RoundValue> out;
    for (std::size_t i = 0; i < e.log_ratios.size(); ++i)
        out.push_back({e.log_ratio_groups[i], e.log_ratio_rounds[i], e.log_ratios[i]});
    return out;
}

std::optional<Test> ratio_test(const Cell& cell, const Cell& base) {
    const auto& a = cell.ratio_estimate;
    const auto& b = base.ratio_estimate;
    if (!a || !b || !a->paired || !b->paired) return std::nullopt;
    if (auto paired = paired_between_labels(round_values(*a), round_values(*b), "Ratio")) {
        paired->effect_pct = (a->ratio / b->ratio - 1) * 100;
        return paired;
    }
    const auto w = stats::welch_t_test(a->log_ratios, b->log_ratios);
    if (!w) return std::nullopt;
    Test t;
    t.what = "Ratio";
    t.method = "Welch t on per-round log-ratios";
    t.statistic = w->t;
    t.df = w->df;
    t.p = w->p;
    t.resolution = Resolution{w->se, w->df, true};
    t.effect_pct = (a->ratio / b->ratio - 1) * 100;
    return t;
}

VersusBaseline compare_with(const Cell& cell, const Cell& base) {
    VersusBaseline v;
    v.time_ratio = cell.time.mean / base.time.mean;
    v.change_pct = (v.time_ratio - 1) * 100;
    const auto a = cell.ok_wall_times(), b = base.ok_wall_times();
    v.judged = a.size() >= kMinRunsForSignificance && b.size() >= kMinRunsForSignificance;
    v.failures = cell.failed > 0 || base.failed > 0;
    if (v.judged) v.welch = stats::welch_t_test(a, b);
    if (a.size() >= kMinRunsForMannWhitney && b.size() >= kMinRunsForMannWhitney)
        v.mann_whitney =
            stats::mann_whitney_u(cell.wall_times_censored(), base.wall_times_censored());
    if (v.judged) v.time_test = time_test(cell, base, v);
    v.ratio_test = ratio_test(cell, base);
    return v;
}

}  // namespace

namespace {

// Every run of a label pooled into its cell under each load, whichever file
// it came from; the loads in the order first seen.
struct PooledRuns {
    std::map<std::string, std::map<std::string, Cell>> cells_by_load;  // load -> label -> cell
    std::vector<std::string> load_first_seen;
};

// The round a run ran in: recorded since runs carry it; before that, the
// index under its load is the round when the file's order went in rounds.
// Runs in blocks (and files that do not say) have none, and pair with none.
int round_of(const RunRecord& run, const ResultFile& file) {
    if (run.round > 0) return run.round;
    const auto order = file.config.find("order");
    const bool in_rounds = order != file.config.end() && order->is_string() &&
                           (*order == "rounds" || *order == "shuffled");
    return in_rounds ? run.index : 0;
}

// The --vary run a file came from: its files share their rounds.
std::string vary_group_of(const ResultFile& file) {
    const auto vary = file.config.find("vary");
    if (vary == file.config.end() || !vary->is_object()) return "";
    const auto group = vary->find("group");
    return group != vary->end() && group->is_string() ? group->get<std::string>() : "";
}

// Online CPUs x 100, from the file's fingerprint; 0 where it does not say.
double capacity_of(const ResultFile& file) {
    const auto cpus = file.system.find("cpus_online");
    return cpus != file.system.end() && cpus->is_number() ? 100 * cpus->get<double>() : 0;
}

std::string row_label(const ResultFile& file, bool by_host) {
    if (!by_host) return file.label;
    return file.label + "@" + host_of(file);
}

PooledRuns pool_runs(const std::vector<ResultFile>& files, bool by_host, ReportModel& model) {
    PooledRuns pooled;
    for (const auto& file : files) {
        const std::string label = row_label(file, by_host);
        auto info = std::find_if(model.labels.begin(), model.labels.end(),
                                 [&](const LabelInfo& l) { return l.label == label; });
        if (info == model.labels.end()) {
            model.labels.push_back({label, {}, file.system, file.config, {}, file.started_at});
            info = model.labels.end() - 1;
        }
        const std::string file_name = file.path.filename().string();
        info->files.push_back(file_name);
        info->systems.push_back(file.system);
        if (!file.started_at.empty() &&
            (info->started_at.empty() || file.started_at < info->started_at))
            info->started_at = file.started_at;
        for (const auto& run : file.runs) {
            if (!pooled.cells_by_load.count(run.load)) pooled.load_first_seen.push_back(run.load);
            Cell& cell = pooled.cells_by_load[run.load][label];
            cell.label = label;
            cell.load = run.load;
            cell.runs.push_back(
                {run, file_name, round_of(run, file), vary_group_of(file), capacity_of(file)});
        }
    }
    return pooled;
}

// --baseline, else the label that ran first (by its earliest start time;
// files without one count as later than any with one).
std::string choose_baseline(const ReportModel& model, const ModelOptions& options) {
    if (!options.baseline) {
        const LabelInfo* first = &model.labels.front();
        for (const auto& l : model.labels)
            if (!l.started_at.empty() &&
                (first->started_at.empty() || l.started_at < first->started_at))
                first = &l;
        return first->label;
    }
    const std::string& baseline = *options.baseline;
    if (!model.find_label(baseline)) {
        const std::string known = join(model.labels, ", ", [](const auto& l) { return l.label; });
        throw UsageError("--baseline " + baseline + ": no such label in the results (" + known +
                         ")");
    }
    return baseline;
}

// One block per load in contest's order; loads this contest does not know
// (newer result files) go last, in the order they were first seen.
void make_blocks(PooledRuns& pooled, ReportModel& model) {
    std::stable_sort(
        pooled.load_first_seen.begin(), pooled.load_first_seen.end(),
        [](const std::string& a, const std::string& b) { return load_order(a) < load_order(b); });
    for (const auto& load : pooled.load_first_seen) {
        LoadBlock block;
        block.load = load;
        auto& by_label = pooled.cells_by_load[load];
        for (const auto& info : model.labels) {
            auto it = by_label.find(info.label);
            if (it == by_label.end()) continue;
            Cell cell = std::move(it->second);
            summarize_cell(cell);
            cell.is_baseline = info.label == model.baseline;
            for (const auto& sr : cell.runs)
                if (block.unit.empty() && !sr.run.load_unit.empty()) block.unit = sr.run.load_unit;
            block.cells.push_back(std::move(cell));
        }
        model.blocks.push_back(std::move(block));
    }
}

void compare_cells(ReportModel& model) {
    for (auto& block : model.blocks)
        for (auto& cell : block.cells) add_ratio(cell, model.find_cell("no_load", cell.label));
    for (auto& block : model.blocks) {
        for (auto& cell : block.cells) {
            const Cell* base = model.find_cell(block.load, model.baseline);
            if (!cell.is_baseline && base && base->time.n > 0 && cell.time.n > 0)
                cell.versus = compare_with(cell, *base);
        }
    }
}

}  // namespace

ReportModel build_report_model(const std::vector<ResultFile>& files, const ModelOptions& options) {
    if (files.empty()) throw UsageError("no result files to report on");
    ReportModel model;
    model.alpha = options.alpha;
    model.correction = options.correction;
    model.min_effect_pct = options.min_effect_pct;
    model.adjust_outside = options.adjust_outside;
    PooledRuns pooled = pool_runs(files, options.by_host, model);
    model.baseline = choose_baseline(model, options);
    make_blocks(pooled, model);
    compare_cells(model);
    add_outside_adjustments(model);
    add_latency(model);
    judge_significance(model);

    note_emulated_labels(model);
    warn_about_mixed_machines(model, options.by_host);
    warn_about_fingerprints(model);
    warn_about_failed_runs(model);
    warn_about_noise(model);
    warn_about_other_work(model);
    warn_about_few_runs(model);
    add_notes(model);
    note_duet_starts(files, model);
    note_level_noise(files, model);
    note_shared_noise(model);
    return model;
}

double widest_ratio_ci_pct(const ResultFile& file) {
    ModelOptions options;
    const ReportModel model = build_report_model({file}, options);
    double widest = 0;
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells) {
            if (block.load == "no_load") continue;
            const double pct = cell.ratio ? cell.ratio_ci95_half / *cell.ratio * 100 : std::nan("");
            widest = std::isfinite(pct) ? std::max(widest, pct)
                                        : std::numeric_limits<double>::infinity();
        }
    return widest;
}

double widest_time_mde_pct(const std::vector<ResultFile>& files, bool adjust_outside) {
    if (files.size() < 2) return std::numeric_limits<double>::infinity();
    ModelOptions options;
    options.baseline = files.front().label;
    // What the runs could see, not floored at --min-effect: that floor is a
    // reading of the results (compare may be given a smaller one), contest
    // run has none, and with it a --target-mde of 1% or less could never be
    // reached.
    options.min_effect_pct = 0;
    options.adjust_outside = adjust_outside;
    const ReportModel model = build_report_model(files, options);
    double widest = 0;
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells) {
            if (cell.is_baseline) continue;
            const Test* t =
                cell.versus && cell.versus->time_test ? &*cell.versus->time_test : nullptr;
            const double pct = t ? t->mde_pct : std::nan("");
            widest = std::isfinite(pct) ? std::max(widest, pct)
                                        : std::numeric_limits<double>::infinity();
        }
    return widest;
}

}  // namespace contest
