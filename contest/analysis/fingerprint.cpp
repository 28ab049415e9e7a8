// Whether two labels ran on the same hardware and workload: the fingerprint
// fields that must agree, and the warning when they do not.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "contest/analysis/fingerprint.h"
#include "contest/sys/json_text.h"

namespace contest {

namespace {

// Kernels on one machine report MemTotal a few MiB apart (the kernel's own
// reservations differ), so memory counts as different only beyond this.
constexpr double kMemoryTolerance = 0.02;

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
    std::string s = v.is_string() ? v.get<std::string>() : json_text(v, -1);
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return "'" + s + "'";
}

}  // namespace

const std::vector<std::string>& fingerprint_fields() {
    // The hardware and its frequency policy (sysinfo), and what was compiled
    // how (the run's config and the workload's description). Left out: the
    // kernel's own fields (release, .config, HZ, preemption, the compiler
    // that built it, what it reports of vulnerabilities), which are what is
    // being compared, and paths and cache flags, which differ without mattering.
    static const std::vector<std::string> fields = {
        "system.cpu_model",
        "system.cpus_online",
        "system.mem_total_bytes",
        "system.cpufreq_governor",
        // Settings of the machine that a kernel build does not choose (its
        // HZ and preemption model are the kernel; kernel_facts).
        "system.kernel.boot_mitigations",
        "system.kernel.smt.active",
        "system.kernel.transparent_hugepage.enabled",
        "system.kernel.transparent_hugepage.defrag",
        "system.kernel.swap.enabled",
        "system.kernel.cgroup",
        "system.kernel.workdir.fs_type",
        "system.kernel.workdir.mount_options",
        "system.kernel.workdir.io_scheduler",
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

std::string host_of(const ResultFile& file) {
    const auto host = file.system.find("hostname");
    return host != file.system.end() && host->is_string() ? host->get<std::string>() : "?";
}

void warn_about_mixed_machines(ReportModel& model, bool by_host) {
    // What makes one machine another for a compile's time.
    static const std::vector<std::string> machine_fields = {
        "system.cpu_model", "system.cpus_online", "system.mem_total_bytes",
        "system.kernel_release"};
    for (const auto& info : model.labels) {
        std::string differences;
        for (const auto& field : machine_fields) {
            const std::string key = field.substr(field.find('.') + 1);
            const nlohmann::json* first = nullptr;
            for (std::size_t i = 0; i < info.systems.size(); ++i) {
                const auto* value = find_dotted(info.systems[i], key);
                if (!value) continue;
                if (!first) {
                    first = value;
                } else if (!fingerprint_values_agree(field, *first, *value)) {
                    differences += (differences.empty() ? "" : "; ") + field + " " +
                                   short_value(*first) + " vs " + short_value(*value) + " in " +
                                   info.files[i];
                    break;
                }
            }
        }
        if (!differences.empty())
            model.warnings.push_back(info.label + ": its files come from different machines (" +
                                     differences + "): their runs are pooled into one row" +
                                     (by_host ? "" : "; --by-host separates them as LABEL@host"));
    }
}

}  // namespace contest
