// dbench_load: dbench (the file-server load generator) with 16 x CPUs
// clients, over and over, in the load's private folder, as contest ran it.
// Work is dbench's own count of completed operations, read from its
// once-a-second progress lines as they come, so it shows while a run goes.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/spawn.h"
#include "loads/load.h"
#include "loads/load_files.h"
#include "loads/registry.h"

namespace contest {
namespace {

constexpr unsigned kClientsPerCpu = 16;
constexpr int kSecondsPerRun = 30;
// Where Debian's package (and a source install) put dbench's load file.
constexpr const char* kLoadFiles[] = {"/usr/share/dbench/client.txt",
                                      "/usr/local/share/dbench/client.txt",
                                      "/usr/local/share/client.txt"};

std::optional<std::string> dbench_load_file() {
    for (const char* path : kLoadFiles)
        if (::access(path, R_OK) == 0) return path;
    return std::nullopt;
}

// From a progress line "  32     49929  1146.17 MB/sec  execute   1 sec  ...":
// the operations completed so far in this run. The count runs on from the
// warm-up lines into the execute ones, and both are work the machine did.
std::optional<std::uint64_t> operations_so_far(const std::string& line) {
    if (line.find(" execute ") == std::string::npos && line.find(" warmup ") == std::string::npos)
        return std::nullopt;
    unsigned clients = 0;
    unsigned long long ops = 0;
    if (std::sscanf(line.c_str(), " %u %llu", &clients, &ops) != 2) return std::nullopt;
    return ops;
}

class DbenchLoad final : public Load {
  public:
    explicit DbenchLoad(const LoadEnv& env) : env_(env), clients_(kClientsPerCpu * env.cpus) {}

    void prepare() override {
        dirfd_ = open_load_dir(env_.dir);
        room_ = disk_room(dirfd_.get());
        // dbench's load file keeps each client's files small (a few MiB);
        // ask for room for 16 MiB a client on top of the margin.
        std::uint64_t needed = std::uint64_t{clients_} * 16 * kMiB;
        if (room_.usable() < needed)
            throw EnvironmentError("dbench_load: no room on disk for " + std::to_string(clients_) +
                                   " dbench clients in " + env_.dir.string());
        load_file_ = dbench_load_file();
    }

    void run(LoadCounters& counters) override {
        UniqueFd errors = make_error_log(dirfd_.get());
        std::vector<std::string> argv = {"dbench", "-D", env_.dir.string(), "-t",
                                         std::to_string(kSecondsPerRun)};
        if (load_file_) argv.insert(argv.end(), {"-c", *load_file_});
        argv.push_back(std::to_string(clients_));
        for (;;) {
            int pipe_fds[2];
            if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
                counters.fail(std::string("dbench_load: pipe: ") + std::strerror(errno));
                return;
            }
            UniqueFd from_dbench(pipe_fds[0]), dbench_out(pipe_fds[1]);
            if (errors.get() >= 0) ::ftruncate(errors.get(), 0);
            pid_t pid = spawn(argv, in_callers_group(-1, dbench_out.get(), errors.get()));
            dbench_out.reset();
            std::uint64_t counted = 0;
            std::string line;
            char buf[4096];
            for (;;) {
                ssize_t n = ::read(from_dbench.get(), buf, sizeof buf);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) break;
                for (ssize_t i = 0; i < n; ++i) {
                    if (buf[i] != '\n') {
                        line += buf[i];
                        continue;
                    }
                    if (auto ops = operations_so_far(line); ops && *ops > counted) {
                        counters.units.fetch_add(*ops - counted, std::memory_order_relaxed);
                        counted = *ops;
                    }
                    line.clear();
                }
            }
            from_dbench.reset();
            int status = wait_for_exit(pid);
            if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && counted == 0) {
                counters.fail("dbench_load: dbench " + describe_wait_status(status) + ": " +
                              error_log_tail(errors.get()));
                return;
            }
            counters.secondary.fetch_add(1, std::memory_order_relaxed);
        }
    }

    nlohmann::json facts() const override {
        return {{"clients", clients_},
                {"seconds_per_run", kSecondsPerRun},
                {"load_file", load_file_.value_or("dbench's default")},
                {"disk", room_.to_json()},
                {"dbench", find_on_path("dbench").value_or("").string()}};
    }

  private:
    LoadEnv env_;
    unsigned clients_;
    UniqueFd dirfd_;
    DiskRoom room_;
    std::optional<std::string> load_file_;
};

std::optional<std::string> dbench_load_unavailable(const LoadOptions&) {
    if (!find_on_path("dbench"))
        return "dbench not found on PATH (install the Debian package dbench: apt-get install "
               "dbench)";
    return std::nullopt;
}

}  // namespace

extern const LoadInfo kDbenchLoad{
    .name = "dbench_load",
    .help = "dbench with 16 x CPUs clients, over and over",
    .unit = "k dbench ops",
    .unit_divisor = 1000,
    .secondary_unit = "runs",
    .classes = LoadClass::io | LoadClass::filesystem,
    .sets = LoadSets::all_only,
    .unavailable = dbench_load_unavailable,
    .make = [](const LoadEnv& env) -> std::unique_ptr<Load> {
        return std::make_unique<DbenchLoad>(env);
    },
};

}  // namespace contest
