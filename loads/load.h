#pragma once
// The load interface. A load runs in its own process (forked by contest, in
// its own process group) and counts the work it does into LoadCounters, which
// live in shared memory so contest can sample them at the exact start and end
// of the workload without asking the load anything.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "contest/sys/workdir.h"
#include "loads/load_option.h"

namespace contest {

// Mapped MAP_SHARED before the load forks: every process of the load (the
// ring's members, the tar loop's children) adds to the same counters.
struct LoadCounters {
    std::atomic<std::uint64_t> units{0};      // primary work, in LoadInfo::unit_divisor steps
    std::atomic<std::uint64_t> secondary{0};  // optional second measure (LoadInfo::secondary_unit)
    // Times the load started its program again after it ended by itself
    // (a --load-cmd that exits): said to the user, never hidden in a rate.
    std::atomic<std::uint64_t> restarts{0};
    // A load that gives up writes why here before exiting non-zero.
    char error[512] = {};
    void fail(const std::string& why);
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "counters are shared between processes and must be lock-free");

// What every load is given, whichever it is (command line or config file).
// A load's own settings are not fields here: each load lists them in its
// entry (LoadInfo::options) and reads them from `values` through that list.
struct LoadOptions {
    std::filesystem::path workdir;  // each load gets a private folder under it
    std::optional<Workdir>
        opened_workdir;  // workdir, opened and checked once; unset: opened on use
    std::filesystem::path workload_source;  // the workload's source tree (the tar loads)
    // The load options given, by name as on the command line ("ring-processes").
    std::map<std::string, std::string, std::less<>> values;

    void set(std::string_view name, std::string value) { values[std::string(name)] = value; }
    // The value given for option, else its default; nullopt when neither.
    std::optional<std::string> text(const LoadOption& option) const;
    // The same as a number (checked by check_option_value; throws UsageError).
    std::optional<double> number(const LoadOption& option) const;
};

// What the orchestrator hands to a load when it makes one.
struct LoadEnv {
    std::filesystem::path dir;        // private folder (0700), created before, removed after
    unsigned cpus = 1;                // online CPUs
    std::uint64_t mem_total = 0;      // bytes, /proc/meminfo MemTotal
    std::uint64_t mem_available = 0;  // bytes, MemAvailable
    std::uint64_t swap_free = 0;      // bytes, SwapFree
    LoadOptions options;
};

class Load {
  public:
    virtual ~Load() = default;
    // In contest's process, before the load starts, untimed. Makes files the
    // load reads, computes caps. Throws EnvironmentError when it cannot run.
    virtual void prepare() {}
    // In the load's own process; loops until the process is killed (SIGTERM).
    // Returning means the load failed: set counters.fail(why) first.
    virtual void run(LoadCounters& counters) = 0;
    // Facts to keep in the result file: targets, caps, cache fit, ...
    virtual nlohmann::json facts() const { return nlohmann::json::object(); }
};

}  // namespace contest
