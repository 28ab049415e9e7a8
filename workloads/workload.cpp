#include "workloads/workload.h"

#include <fstream>

#include "contest/sys/errors.h"
#include "contest/sys/machine.h"
#include "contest/sys/workdir.h"
#include "workloads/workload_kinds.h"

namespace contest {

std::unique_ptr<Workload> make_workload(const WorkloadOptions& options) {
    check_workload_kind(options.kind);
    if (options.kind == "synthetic") return make_synthetic_workload(options);
    if (options.kind == "kernel") return make_kernel_workload(options);
    return make_command_workload(options);
}

void check_workload_kind(const std::string& kind) {
    if (kind != "synthetic" && kind != "kernel" && kind != "command")
        throw UsageError("--workload: unknown workload '" + kind +
                         "' (synthetic, kernel or command)");
}

unsigned effective_jobs(unsigned jobs) {
    return jobs > 0 ? jobs : contest_parallelism();
}

void reset_log(const std::filesystem::path& log) {
    create_file_no_follow(log);  // a link planted where the log goes is refused
}

}  // namespace contest
