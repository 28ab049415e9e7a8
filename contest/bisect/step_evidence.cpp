#include "contest/bisect/step_evidence.h"

#include <algorithm>
#include <filesystem>

#include "contest/sys/text.h"

namespace contest::bisect {

namespace fs = std::filesystem;

const ResultFile* file_of(const std::vector<ResultFile>& files, const std::string& label) {
    for (const auto& f : files)
        if (f.label == label) return &f;
    return nullptr;
}

std::vector<EndsRound> batch_ends(const std::vector<ResultFile>& files, const BisectMeasure& m,
                                  unsigned& incomplete) {
    incomplete = 0;
    const ResultFile *g = file_of(files, "good"), *b = file_of(files, "bad");
    return g && b ? ends_rounds(*g, *b, m, incomplete) : std::vector<EndsRound>{};
}

std::string failed_label(const StepFailed& e, const std::vector<KernelSpec>& kernels) {
    const std::string folder = fs::path(e.log()).parent_path().filename().string();
    const std::string what = e.what();
    for (const auto& k : kernels) {
        if (!e.log().empty() && folder == k.label) return k.label;
        for (const char* option : {"--kernel ", "--boot "})
            for (const char* after : {"=", ":"})
                if (what.starts_with(option + k.label + after)) return k.label;
    }
    return "";
}

std::string lacking_in_last_round(const std::vector<ResultFile>& files) {
    int last = 0;
    for (const auto& f : files)
        for (const auto& r : f.runs) last = std::max(last, r.round);
    std::vector<std::string> lacking;
    for (const auto& f : files) {
        const RunRecord* failed = nullptr;
        bool figure = false;
        for (const auto& r : f.runs)
            if (r.round == last) {
                figure = figure || r.ok();
                if (!r.ok() && !failed) failed = &r;
            }
        if (figure) continue;
        const std::string who =
            f.label == "tested" ? "the tested commit" : "the " + f.label + " end";
        lacking.push_back(
            who + " brought no figure back in round " + std::to_string(last) +
            (failed ? " (" + std::string(name_in(kRunStatusNames, failed->status)) +
                          (failed->reason.empty() ? "" : ": " + printable(failed->reason)) + ")"
                    : ""));
    }
    return join(lacking, "; ");
}

bool lacks_a_figure(const std::vector<ResultFile>& files, const std::vector<KernelSpec>& kernels) {
    return std::any_of(kernels.begin(), kernels.end(), [&](const KernelSpec& k) {
        return std::none_of(files.begin(), files.end(), [&](const ResultFile& f) {
            return f.label == k.label && std::any_of(f.runs.begin(), f.runs.end(),
                                                     [](const RunRecord& r) { return r.ok(); });
        });
    });
}

std::vector<std::string> labels_of(const std::vector<KernelSpec>& kernels) {
    std::vector<std::string> labels;
    for (const auto& k : kernels) labels.push_back(k.label);
    return labels;
}

bool emulated(const std::vector<ResultFile>& files) {
    for (const auto& f : files)
        if (const auto vm = f.config.find("vm"); vm != f.config.end() && vm->is_object())
            if (vm->value("emulated", false)) return true;
    return false;
}

void note_build(const std::vector<ResultFile>& files, BisectStep& step) {
    const ResultFile* x = file_of(files, "tested");
    if (!x) return;
    auto kernel = x->config.find("kernel");
    if (kernel == x->config.end() || !kernel->is_object()) kernel = x->config.find("boot");
    if (kernel == x->config.end() || !kernel->is_object()) return;
    const auto build = kernel->find("build");
    if (build == kernel->end() || !build->is_object()) return;
    step.cache_hit = build->value("cache_hit", false);
    const auto s = build->find("build_s");
    if (!step.cache_hit && s != build->end() && s->is_number()) step.build_s = s->get<double>();
}

void note_boots(const std::vector<ResultFile>& files, BisectStep& step) {
    for (const auto& f : files) {
        const auto vm = f.config.find("vm");
        if (vm == f.config.end() || !vm->is_object()) continue;
        const auto boots = vm->find("boots");
        if (boots == vm->end() || !boots->is_array()) continue;
        for (const auto& b : *boots) {
            if (!b.is_object()) continue;
            if (b.contains("up_s") && b["up_s"].is_number())
                step.boots_s += b["up_s"].get<double>();
            if (b.contains("total_s") && b["total_s"].is_number())
                step.guests_s += b["total_s"].get<double>();
        }
    }
}

}  // namespace contest::bisect
