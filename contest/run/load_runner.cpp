#include "contest/run/load_runner.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>

#include "contest/sys/errors.h"
#include "contest/sys/spawn.h"
#include "contest/sys/signals.h"
#include "contest/sys/sysinfo.h"

namespace contest {

LoadWindow load_window(const LoadInfo& info, const LoadSample& from, const LoadSample& to) {
    LoadWindow w;
    w.seconds = std::chrono::duration<double>(to.at - from.at).count();
    w.units = static_cast<double>(to.units - from.units) / info.unit_divisor;
    w.secondary = static_cast<double>(to.secondary - from.secondary) / info.secondary_divisor;
    w.cpu_pct = w.seconds > 0 ? 100.0 * (to.cpu_s - from.cpu_s) / w.seconds : 0;
    return w;
}

PrivateDir::PrivateDir(const std::filesystem::path& parent, const std::string& name) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    path_ = parent / (name + "." + std::to_string(::getpid()));
    std::filesystem::remove_all(path_, ec);  // a leftover of a killed run with our pid
    if (::mkdir(path_.c_str(), 0700) != 0)
        throw EnvironmentError("cannot create " + path_.string() + ": " + std::strerror(errno));
}

PrivateDir::~PrivateDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

LoadEnv make_load_env(const std::filesystem::path& dir, const LoadOptions& options) {
    LoadEnv env;
    env.dir = dir;
    env.cpus = online_cpus();
    MemInfo m = read_meminfo();
    env.mem_total = m.total;
    env.mem_available = m.available;
    env.swap_free = m.swap_free;
    env.options = options;
    return env;
}

RunningLoad::RunningLoad(const LoadInfo& info, Load& load) : info_(info) {
    void* mem = ::mmap(nullptr, sizeof(LoadCounters), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) throw EnvironmentError(std::string("mmap: ") + std::strerror(errno));
    counters_ = new (mem) LoadCounters();
    LoadCounters* counters = counters_;
    pid_t pid = fork_function([&load, counters] {
        try {
            load.run(*counters);
        } catch (const std::exception& e) {
            counters->fail(e.what());  // e.g. its helper program could not start
        }
        if (counters->error[0] == '\0') counters->fail("the load stopped by itself");
        return 1;
    });
    group_ = GroupGuard(pid);
}

RunningLoad::~RunningLoad() {
    group_.stop();
    counters_->~LoadCounters();
    ::munmap(counters_, sizeof(LoadCounters));
}

void RunningLoad::stop() {
    group_.stop();
}

LoadSample RunningLoad::sample() const {
    LoadSample s;
    s.at = std::chrono::steady_clock::now();
    s.units = counters_->units.load(std::memory_order_relaxed);
    s.secondary = counters_->secondary.load(std::memory_order_relaxed);
    s.cpu_s = group_.pgid() > 0 ? group_cpu_seconds(group_.pgid()) : 0;
    return s;
}

LoadSession::LoadSession(const LoadInfo& info, const LoadOptions& options)
    : info_(info), options_(options) {
    dir_.emplace(options.workdir / "loads", std::string(info.name));
    load_ = info.make(make_load_env(dir_->path(), options));
    load_->prepare();
}

LoadSession::~LoadSession() {
    destroy_load();
}

void LoadSession::start() {
    if (!info_.does_work()) return;
    running_.emplace(info_, *load_);
}

std::optional<std::string> LoadSession::warm_up(double seconds) {
    auto before = sample();
    interruptible_sleep(seconds);
    auto after = sample();
    if (auto why = failure()) return why;
    if (after.units == before.units) {
        char why[160];
        std::snprintf(why, sizeof why, "%s did no work in its %.1f s warm-up", info_.name.data(),
                      seconds);
        return std::string(why);
    }
    return std::nullopt;
}

nlohmann::json LoadSession::facts() const {
    nlohmann::json facts = load_->facts();
    if (!info_.options.empty()) facts["options"] = info_.options_json(options_);
    return facts;
}

std::optional<std::string> RunningLoad::failure() const {
    if (group_.pgid() <= 0) return "not running";
    siginfo_t si{};
    // WNOWAIT: look, don't reap; the group guard is the one that reaps.
    if (::waitid(P_PID, static_cast<id_t>(group_.pgid()), &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        si.si_pid == 0)
        return std::nullopt;
    std::string why = counters_->error[0] ? std::string(counters_->error) : std::string();
    if (why.empty()) {
        // waitid's siginfo, as the raw wait status waitpid would have given.
        int status = si.si_code == CLD_EXITED ? W_EXITCODE(si.si_status, 0) : si.si_status;
        why = describe_wait_status(status);
    }
    return std::string(info_.name) + " stopped: " + why;
}

}  // namespace contest
