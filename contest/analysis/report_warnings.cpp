// The warnings under a report (see report_warnings.h).
#include "contest/analysis/report_warnings.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "contest/analysis/min_runs.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

std::string percent(double fraction) {
    return fixed(fraction * 100, 1) + "%";
}

}  // namespace

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
            const bool quiet_load = block.unit.empty();  // no_load, cacherun
            for (const auto& sr : c->runs) {
                if (!sr.run.ok()) continue;
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
                info.label + ": other work on the machine used " + fixed(others.mean, 1) +
                "% of a CPU (mean, max " + fixed(others.max, 1) +
                "%) during the runs without a load: its Times include that; a quieter "
                "machine would help");
        const auto user = stats::summarize(user_s);
        // Below a second of user time, rusage's granularity alone varies more.
        if (user.n >= 2 && user.mean >= 1.0 && user.cv > kCpuSpeedCv)
            model.warnings.push_back(
                info.label + ": the same compile took " + fixed(user.min, 1) + " to " +
                fixed(user.max, 1) + " s of user time without a load (CV " + percent(user.cv) +
                "): the CPU itself ran at different speeds (frequency scaling, or a VM host's "
                "other tenants on the same cores); its Times include that");
        if (steal.n > 0 && steal.mean > kBusyStealPct)
            model.warnings.push_back(info.label + ": the hypervisor took " + fixed(steal.mean, 1) +
                                     "% of a CPU (steal, mean, max " + fixed(steal.max, 1) +
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

void warn_about_failed_runs(ReportModel& model) {
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells)
            if (cell.failed)
                model.warnings.push_back(cell.label + " under " + block.load + ": " +
                                         std::to_string(cell.failed) + " of " +
                                         std::to_string(cell.runs.size()) +
                                         " runs did not finish ok and are left out");
}

std::string emulated_sentence(const ReportModel& model) {
    return "the runs of " + join(model.emulated_labels, ", ") +
           " ran in QEMU guests under TCG (software emulation): their times compare the "
           "kernels' code paths on an emulated machine, not on real hardware";
}

// --kernel under TCG records config.vm.emulated in every file it writes.
void note_emulated_labels(ReportModel& model) {
    for (const auto& info : model.labels) {
        const auto vm = info.config.find("vm");
        if (vm != info.config.end() && vm->is_object() && vm->value("emulated", false))
            model.emulated_labels.push_back(info.label);
    }
    if (!model.emulated_labels.empty())
        model.warnings.push_back("EMULATED: " + emulated_sentence(model));
}

}  // namespace contest
