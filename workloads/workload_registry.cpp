#include "workloads/workload_registry.h"

#include "contest/sys/errors.h"
#include "workloads/workload_kinds.h"

namespace contest {

namespace {

// Adding a kind: its file (with its make_ function in workload_kinds.h) and
// one line here.
const WorkloadInfo kWorkloads[] = {
    {"synthetic", "an embedded, generated C project (--synthetic-size)", make_synthetic_workload},
    {"kernel", "a Linux source tree or tarball (--kernel-source, --kernel-config)",
     make_kernel_workload},
    {"command", "your own command (--workload-cmd, --prepare-cmd, --clean-cmd)",
     make_command_workload},
};

}  // namespace

std::span<const WorkloadInfo> workload_registry() {
    return kWorkloads;
}

const WorkloadInfo* find_workload(std::string_view name) {
    for (const WorkloadInfo& w : kWorkloads)
        if (w.name == name) return &w;
    return nullptr;
}

std::string workload_names(std::string_view separator, std::string_view last) {
    std::string names;
    for (std::size_t i = 0; i < std::size(kWorkloads); ++i) {
        if (i) names += i + 1 == std::size(kWorkloads) ? last : separator;
        names += kWorkloads[i].name;
    }
    return names;
}

std::unique_ptr<Workload> make_workload(const WorkloadOptions& options) {
    check_workload_kind(options.kind);
    return find_workload(options.kind)->make(options);
}

void check_workload_kind(const std::string& kind) {
    if (find_workload(kind)) return;
    std::string text = "--workload: unknown workload '";  // appended: GCC 12 -O3 warns on + temp
    text += kind;
    text += "' (";
    text += workload_names(", ", " or ");
    text += ")";
    throw UsageError(text);
}

}  // namespace contest
