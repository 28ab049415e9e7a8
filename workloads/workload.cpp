#include "workloads/workload.h"

#include <fstream>

#include "contest/sys/errors.h"
#include "contest/sys/machine.h"
#include "contest/sys/workdir.h"
#include "workloads/workload_kinds.h"
#include "workloads/workload_registry.h"

namespace contest {

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

unsigned effective_jobs(unsigned jobs) {
    return jobs > 0 ? jobs : contest_parallelism();
}

void reset_log(const std::filesystem::path& log) {
    create_file_no_follow(log);  // a link planted where the log goes is refused
}

}  // namespace contest
