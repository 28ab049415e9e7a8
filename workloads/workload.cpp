#include "workloads/workload.h"

#include <fstream>

#include "contest/sys/errors.h"
#include "contest/sys/machine.h"
#include "contest/sys/workdir.h"

namespace contest {

unsigned effective_jobs(unsigned jobs) {
    return jobs > 0 ? jobs : contest_parallelism();
}

void reset_log(const std::filesystem::path& log) {
    create_file_no_follow(log);  // a link planted where the log goes is refused
}

}  // namespace contest
