#include "contest/report/report_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "contest/sys/errors.h"
#include "loads/registry.h"

namespace contest {

namespace {

// Kernels on one machine report MemTotal a few MiB apart (the kernel's own
// reservations differ), so memory counts as different only beyond this.
constexpr double kMemoryTolerance = 0.02;

std::string percent(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100);
    return buf;
}

const nlohmann::json* find_dotted(const nlohmann::json& root, const std::string& dotted) {
    const nlohmann::json* at = &root;
    std::size_t start = 0;
    while (start <= dotted.size()) {
        const std::size_t dot = std::min(dotted.find('.', start), dotted.size());
        const std::string key = dotted.substr(start, dot - start);
        if (!at->is_object()) return nullptr;
        auto it = at->find(key);
        if (it == at->end() || it->is_null()) return nullptr;
        at = &*it;
        start = dot + 1;
    }
    return at;
}

bool fingerprint_values_agree(const std::string& field, const nlohmann::json& a,
                              const nlohmann::json& b) {
    if (field == "system.mem_total_bytes" && a.is_number() && b.is_number()) {
        const double x = a.get<double>(), y = b.get<double>();
        return std::fabs(x - y) <= kMemoryTolerance * std::max(std::fabs(x), std::fabs(y));
    }
    return a == b;
}

std::string short_value(const nlohmann::json& v) {
    std::string s = v.is_string() ? v.get<std::string>() : v.dump();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return "'" + s + "'";
}

void summarize_cell(Cell& cell) {
    std::vector<double> wall, cpu, units, lcpu;
    for (const auto& sr : cell.runs) {
        if (!sr.run.ok()) {
            ++cell.failed;
            continue;
        }
        wall.push_back(sr.run.wall_s);
        cpu.push_back(sr.run.cpu_pct);
        units.push_back(sr.run.load_units);
        lcpu.push_back(sr.run.load_cpu_pct);
    }
    cell.time = stats::summarize(wall);
    cell.cpu_pct = stats::summarize(cpu);
    cell.load_units = stats::summarize(units);
    cell.load_cpu_pct = stats::summarize(lcpu);
}

void add_ratio(Cell& cell, const Cell* no_load) {
    if (!no_load || no_load->time.n == 0 || cell.time.n == 0 || !(no_load->time.mean > 0)) return;
    cell.ratio = cell.time.mean / no_load->time.mean;
    if (&cell == no_load) {
        cell.ratio_ci95_half = 0;
        return;
    }
    const double rel_a = cell.time.ci95_half / cell.time.mean;
    const double rel_b = no_load->time.ci95_half / no_load->time.mean;
    cell.ratio_ci95_half = *cell.ratio * std::sqrt(rel_a * rel_a + rel_b * rel_b);
}

VersusBaseline compare_with(const Cell& cell, const Cell& base, double alpha) {
    VersusBaseline v;
    v.time_ratio = cell.time.mean / base.time.mean;
    v.change_pct = (v.time_ratio - 1) * 100;
    const auto a = cell.ok_wall_times(), b = base.ok_wall_times();
    v.judged = a.size() >= kMinRunsForSignificance && b.size() >= kMinRunsForSignificance;
    if (v.judged) v.welch = stats::welch_t_test(a, b);
    if (a.size() >= kMinRunsForMannWhitney && b.size() >= kMinRunsForMannWhitney)
        v.mann_whitney = stats::mann_whitney_u(a, b);
    v.significant = v.judged && v.welch && v.welch->p < alpha;
    return v;
}

void warn_about_noise(ReportModel& model) {
    // One line per label, so a noisy machine does not bury the table in warnings.
    for (const auto& info : model.labels) {
        std::string loads;
        for (const auto& block : model.blocks)
            if (const Cell* c = model.find_cell(block.load, info.label);
                c && c->time.n >= 2 && c->time.cv > kNoisyCv)
                loads +=
                    (loads.empty() ? "" : ", ") + block.load + " (" + percent(c->time.cv) + ")";
        if (!loads.empty())
            model.warnings.push_back(info.label + ": Time varies by more than " +
                                     percent(kNoisyCv) + " (CV) under " + loads +
                                     ": the machine was noisy; more runs (--runs) or a quieter "
                                     "machine would help");
    }
}

std::string one_decimal(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return buf;
}

// What else the machine did while the runs were timed. Only runs without a
// load count for "others": a load's own kernel threads (io_load's writeback)
// show up there too, and are part of what the load does. The same runs say
// whether the CPU itself kept its speed: the same compile needs the same
// user time, unless the clock or a VM host's other tenants changed under it,
// which neither steal nor /proc/stat can see.
void warn_about_other_work(ReportModel& model) {
    for (const auto& info : model.labels) {
        std::vector<double> others_pct, steal_pct, user_s;
        for (const auto& block : model.blocks) {
            const Cell* c = model.find_cell(block.load, info.label);
            if (!c) continue;
            for (const auto& sr : c->runs) {
                if (!sr.run.ok()) continue;
                // A load that does no work (no_load, cacherun) records no unit.
                const bool quiet_load = sr.run.load_unit.empty();
                if (sr.run.steal_pct) steal_pct.push_back(*sr.run.steal_pct);
                if (quiet_load && sr.run.others_cpu_pct)
                    others_pct.push_back(*sr.run.others_cpu_pct);
                if (quiet_load && sr.run.user_s > 0) user_s.push_back(sr.run.user_s);
            }
        }
        const auto others = stats::summarize(others_pct);
        const auto steal = stats::summarize(steal_pct);
        if (others.n > 0 && others.mean > kBusyOthersPct)
            model.warnings.push_back(
                info.label + ": other work on the machine used " + one_decimal(others.mean) +
                "% of a CPU (mean, max " + one_decimal(others.max) +
                "%) during the runs without a load: its Times include that; a quieter "
                "machine would help");
        const auto user = stats::summarize(user_s);
        // Below a second of user time, rusage's granularity alone varies more.
        if (user.n >= 2 && user.mean >= 1.0 && user.cv > kCpuSpeedCv)
            model.warnings.push_back(
                info.label + ": the same compile took " + one_decimal(user.min) + " to " +
                one_decimal(user.max) + " s of user time without a load (CV " + percent(user.cv) +
                "): the CPU itself ran at different speeds (frequency scaling, or a VM host's "
                "other tenants on the same cores); its Times include that");
        if (steal.n > 0 && steal.mean > kBusyStealPct)
            model.warnings.push_back(info.label + ": the hypervisor took " +
                                     one_decimal(steal.mean) + "% of a CPU (steal, mean, max " +
                                     one_decimal(steal.max) +
                                     "%) during the runs: its Times include that");
    }
}

void warn_about_few_runs(ReportModel& model) {
    if (model.labels.size() < 2) return;  // nothing is compared, nothing to judge
    for (const auto& info : model.labels) {
        std::string loads;
        for (const auto& block : model.blocks)
            if (const Cell* c = model.find_cell(block.load, info.label);
                c && c->time.n < kMinRunsForSignificance)
                loads += (loads.empty() ? "" : ", ") + block.load + " (" +
                         std::to_string(c->time.n) + ")";
        if (!loads.empty())
            model.warnings.push_back(
                info.label + " has fewer than " + std::to_string(kMinRunsForSignificance) +
                " successful runs under " + loads + ": significance can't be judged there");
    }
}

void warn_about_fingerprints(ReportModel& model) {
    const LabelInfo* base = model.find_label(model.baseline);
    for (const auto& info : model.labels) {
        if (&info == base) continue;
        std::string differences;
        for (const auto& field : fingerprint_fields()) {
            const std::string section = field.substr(0, field.find('.'));
            const std::string rest = field.substr(field.find('.') + 1);
            const auto& root_a = section == "system" ? base->system : base->config;
            const auto& root_b = section == "system" ? info.system : info.config;
            const auto* a = find_dotted(root_a, rest);
            const auto* b = find_dotted(root_b, rest);
            if (!a || !b || fingerprint_values_agree(field, *a, *b)) continue;
            differences += (differences.empty() ? "" : "; ") + field + " " + short_value(*a) +
                           " vs " + short_value(*b);
        }
        if (!differences.empty())
            model.warnings.push_back(
                base->label + " and " + info.label + " differ in more than the kernel (" +
                differences + "): contest compares kernels on the same hardware and workload");
    }
}

void warn_about_failed_runs(ReportModel& model) {
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells)
            if (cell.failed)
                model.warnings.push_back(cell.label + " under " + block.load + ": " +
                                         std::to_string(cell.failed) + " of " +
                                         std::to_string(cell.runs.size()) +
                                         " runs did not finish ok and are left out");
}

}  // namespace

std::vector<double> Cell::ok_wall_times() const {
    std::vector<double> out;
    for (const auto& sr : runs)
        if (sr.run.ok()) out.push_back(sr.run.wall_s);
    return out;
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

bool ReportModel::any_unjudged() const {
    for (const auto& block : blocks)
        for (const auto& cell : block.cells)
            if (cell.versus && !cell.versus->judged) return true;
    return false;
}

const std::vector<std::string>& fingerprint_fields() {
    // The hardware and its frequency policy (sysinfo), and what was compiled
    // how (the run's config and the workload's description). Left out: the
    // kernel's own fields (release, HZ, preemption), which are what is being
    // compared, and paths and cache flags, which differ without mattering.
    static const std::vector<std::string> fields = {
        "system.cpu_model",
        "system.cpus_online",
        "system.mem_total_bytes",
        "system.cpufreq_governor",
        "config.workload.kind",
        "config.workload.synthetic_size",
        "config.workload.generator_version",
        "config.workload.kernel_config",
        "config.workload.kernel_version",
        "config.workload.workload_cmd",
        "config.workload.compiler_version",
        "config.jobs",
    };
    return fields;
}

ReportModel build_report_model(const std::vector<ResultFile>& files, const ReportOptions& options) {
    if (files.empty()) throw UsageError("no result files to report on");
    ReportModel model;
    model.alpha = options.alpha;

    // Pool every run of a label, whichever file it came from.
    std::map<std::string, std::map<std::string, Cell>> cells_by_load;  // load -> label -> cell
    std::vector<std::string> load_first_seen;
    for (const auto& file : files) {
        auto info = std::find_if(model.labels.begin(), model.labels.end(),
                                 [&](const LabelInfo& l) { return l.label == file.label; });
        if (info == model.labels.end()) {
            model.labels.push_back({file.label, {}, file.system, file.config});
            info = model.labels.end() - 1;
        }
        const std::string file_name = file.path.filename().string();
        info->files.push_back(file_name);
        for (const auto& run : file.runs) {
            if (!cells_by_load.count(run.load)) load_first_seen.push_back(run.load);
            Cell& cell = cells_by_load[run.load][file.label];
            cell.label = file.label;
            cell.load = run.load;
            cell.runs.push_back({run, file_name});
        }
    }

    model.baseline = options.baseline.value_or(model.labels.front().label);
    if (!model.find_label(model.baseline)) {
        std::string known;
        for (const auto& l : model.labels) known += (known.empty() ? "" : ", ") + l.label;
        throw UsageError("--baseline " + model.baseline + ": no such label in the results (" +
                         known + ")");
    }

    // contest's order; loads this contest does not know (newer result files)
    // go last, in the order they were first seen.
    std::stable_sort(
        load_first_seen.begin(), load_first_seen.end(),
        [](const std::string& a, const std::string& b) { return load_order(a) < load_order(b); });
    for (const auto& load : load_first_seen) {
        LoadBlock block;
        block.load = load;
        for (const auto& info : model.labels) {
            auto it = cells_by_load[load].find(info.label);
            if (it == cells_by_load[load].end()) continue;
            Cell cell = std::move(it->second);
            summarize_cell(cell);
            cell.is_baseline = info.label == model.baseline;
            for (const auto& sr : cell.runs)
                if (block.unit.empty() && !sr.run.load_unit.empty()) block.unit = sr.run.load_unit;
            block.cells.push_back(std::move(cell));
        }
        model.blocks.push_back(std::move(block));
    }

    for (auto& block : model.blocks) {
        for (auto& cell : block.cells) {
            add_ratio(cell, model.find_cell("no_load", cell.label));
            const Cell* base = model.find_cell(block.load, model.baseline);
            if (!cell.is_baseline && base && base->time.n > 0 && cell.time.n > 0)
                cell.versus = compare_with(cell, *base, model.alpha);
        }
    }

    warn_about_fingerprints(model);
    warn_about_failed_runs(model);
    warn_about_noise(model);
    warn_about_other_work(model);
    warn_about_few_runs(model);
    return model;
}

}  // namespace contest
