#include "contest/run/rounds/load_runner.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "contest/sys/errors.h"
#include "contest/sys/machine.h"
#include "contest/sys/number_text.h"
#include "contest/sys/proc_files.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text_file.h"

namespace contest {

LoadWindow load_window(const LoadInfo& info, const LoadSample& from, const LoadSample& to) {
    LoadWindow w;
    w.seconds = std::chrono::duration<double>(to.at - from.at).count();
    w.units = static_cast<double>(to.units - from.units) / info.unit_divisor;
    w.secondary = static_cast<double>(to.secondary - from.secondary) / info.secondary_divisor;
    w.cpu_pct = w.seconds > 0 ? 100.0 * (to.cpu_s - from.cpu_s) / w.seconds : 0;
    return w;
}

namespace {

constexpr const char* kLoadsFolder = "loads";
constexpr const char* kOwnerSuffix = ".owner";

}  // namespace

PrivateDir::PrivateDir(const Workdir& workdir, const std::string& name)
    : workdir_(workdir),
      rel_(std::string(kLoadsFolder) + "/" + name + "." + std::to_string(::getpid())) {
    workdir_.make_dir(kLoadsFolder);
    workdir_.remove_tree(rel_);  // a leftover of a killed run with our pid
    if (!write_all(workdir_.create_file(rel_ + kOwnerSuffix).get(), owner_marker_text()))
        throw EnvironmentError(std::string("cannot write an owner marker: ") +
                               std::strerror(errno));
    path_ = workdir_.real_dir(rel_);
}

PrivateDir::~PrivateDir() {
    workdir_.remove_tree(rel_);
    workdir_.remove_tree(rel_ + kOwnerSuffix);
}

std::vector<std::string> remove_dead_load_folders(const Workdir& workdir) {
    std::vector<std::string> removed;
    UniqueFd loads(
        ::openat(workdir.fd(), kLoadsFolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (loads.get() < 0) return removed;
    std::error_code ec;
    const auto dir = workdir.path() / kLoadsFolder;
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        names.push_back(e.path().filename().string());
    for (const auto& name : names) {
        if (name.ends_with(kOwnerSuffix)) continue;
        const auto dot = name.rfind('.');
        if (dot == std::string::npos) continue;
        char* end = nullptr;
        const long pid = std::strtol(name.c_str() + dot + 1, &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        const std::string marker = name + kOwnerSuffix;
        const auto owner = read_text_file((dir / marker).string());
        if (!(owner ? marker_owner_dead(*owner) : contest_gone(static_cast<pid_t>(pid)))) continue;
        if (remove_tree_at(loads.get(), name.c_str()))
            removed.push_back((dir / name).string() + " (load folder of contest pid " +
                              std::to_string(pid) + ", which is gone)");
        remove_tree_at(loads.get(), marker.c_str());
    }
    return removed;
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

namespace {

// The load's process: runs the load until it is stopped; a load that
// returns or throws has stopped by itself, and says why in its counters.
int run_load(Load& load, LoadCounters& counters) {
    try {
        load.run(counters);
    } catch (const std::exception& e) {
        counters.fail(e.what());  // e.g. its helper program could not start
    }
    if (counters.error[0] == '\0') counters.fail("the load stopped by itself");
    return 1;
}

}  // namespace

RunningLoad::RunningLoad(const LoadInfo& info, Load& load)
    : info_(info), worker_([&load](LoadCounters& counters) { return run_load(load, counters); }) {}

LoadSample RunningLoad::sample() const {
    const LoadCounters& counters = worker_.block();
    LoadSample s;
    s.at = std::chrono::steady_clock::now();
    s.units = counters.units.load(std::memory_order_relaxed);
    s.secondary = counters.secondary.load(std::memory_order_relaxed);
    s.restarts = counters.restarts.load(std::memory_order_relaxed);
    s.cpu_s = worker_.pgid() > 0 ? group_cpu_seconds(worker_.pgid()) : 0;
    return s;
}

LoadSession::LoadSession(const LoadInfo& info, const LoadOptions& options)
    : info_(info), options_(options) {
    dir_.emplace(Workdir::opened_or_open(options.opened_workdir, options.workdir),
                 std::string(info.name));
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
    units_unchecked_since_.reset();
    if (seconds <= 0) {
        // No time to have done work yet: the run's end checks it instead.
        if (info_.counts_work()) units_unchecked_since_ = before.units;
        return failure();
    }
    interruptible_sleep(seconds);
    auto after = sample();
    if (auto why = failure()) return why;
    if (info_.counts_work() && after.units == before.units)
        return std::string(info_.name) + " did no work in its " + fixed(seconds, 1) + " s warm-up";
    return std::nullopt;
}

std::optional<std::string> LoadSession::failure_over_run() const {
    if (auto why = failure()) return why;
    if (units_unchecked_since_ && sample().units == *units_unchecked_since_)
        return std::string(info_.name) + " did no work during the run (--warmup 0: none before it)";
    return std::nullopt;
}

nlohmann::json LoadSession::facts() const {
    nlohmann::json facts = load_->facts();
    if (!info_.options.empty()) facts["options"] = info_.options_json(options_);
    return facts;
}

std::optional<std::string> RunningLoad::failure() const {
    auto why = worker_.failure();
    if (!why || worker_.pgid() <= 0) return why;  // running, or "not running"
    return std::string(info_.name) + " stopped: " + *why;
}

}  // namespace contest
