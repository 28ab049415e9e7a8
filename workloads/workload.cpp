#include "workloads/workload.h"

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "workloads/workload_kinds.h"

namespace contest {

std::unique_ptr<Workload> make_workload(const WorkloadOptions& options) {
    if (options.kind == "synthetic") return make_synthetic_workload(options);
    if (options.kind == "kernel") return make_kernel_workload(options);
    if (options.kind == "command") return make_command_workload(options);
    throw UsageError("--workload: unknown workload '" + options.kind +
                     "' (synthetic, kernel or command)");
}

unsigned effective_jobs(unsigned jobs) {
    if (jobs > 0) return jobs;
    long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    return 4 * static_cast<unsigned>(cpus > 0 ? cpus : 1);
}

std::filesystem::path find_in_path(const std::string& program, const std::string& search_path) {
    namespace fs = std::filesystem;
    auto executable = [](const fs::path& p) {
        std::error_code ec;
        return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
    };
    if (program.find('/') != std::string::npos)
        return executable(program) ? fs::path(program) : fs::path();
    std::stringstream dirs(search_path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        if (dir.empty()) continue;  // an empty entry means ".", which a benchmark should not trust
        fs::path candidate = fs::path(dir) / program;
        if (executable(candidate)) return candidate;
    }
    return {};
}

std::filesystem::path find_in_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    return find_in_path(program, path ? path : "/usr/local/bin:/usr/bin:/bin");
}

std::string command_output(const std::vector<std::string>& argv,
                           const std::filesystem::path& scratch_dir) {
    std::filesystem::path out = scratch_dir / (".contest-output-" + std::to_string(::getpid()));
    std::string text;
    try {
        std::filesystem::remove(out);
        SpawnOptions options;
        options.output = out;
        run_checked(argv, options, argv.front());
        std::ifstream in(out, std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception&) {
        text.clear();
    }
    std::error_code ec;
    std::filesystem::remove(out, ec);
    return text;
}

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

std::vector<std::string> fixed_build_environment() {
    return {
        "LC_ALL=C",
        "CCACHE_DISABLE=1",
        "MAKEFLAGS=",
        "KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970",
        "KBUILD_BUILD_USER=contest",
        "KBUILD_BUILD_HOST=contest",
    };
}

void reset_log(const std::filesystem::path& log) {
    std::ofstream out(log, std::ios::trunc);
    if (!out) throw EnvironmentError("cannot write " + log.string());
}

}  // namespace contest
