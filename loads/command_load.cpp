// A load of the user's own (--load-cmd NAME=CMD): stress-ng, fio,
// hackbench, a database, run as contest runs its loads. The command is split
// into words (no shell) and started in the load's process group, so that the
// load's stop stops it and all it starts, and its CPU is the load's LCPU.
// When it ends by itself it is started again (a second later at the soonest,
// so a command that fails at once is no fork storm), and each new start is
// counted as a restart, which the run says. With a units command
// (--load-cmd-units NAME=CMD), that command is run every quarter second and
// the number it prints is taken as the work done so far: Loads is its
// growth over the workload's window. Both run in the load's private folder.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <stdexcept>
#include <thread>

#include "contest/sys/errors.h"
#include "contest/sys/spawn.h"
#include "contest/sys/words.h"
#include "loads/command_load.h"
#include "loads/load.h"

namespace contest {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kPollInterval = std::chrono::milliseconds(250);
constexpr auto kShortestRun = std::chrono::seconds(1);
// The units command's number is kept to a thousandth.
constexpr double kUnitsScale = 1000;

std::vector<std::string> command_words(const std::string& option, const std::string& name,
                                       const std::string& command) {
    std::vector<std::string> words;
    try {
        words = split_words(command);
    } catch (const UsageError& e) {
        throw UsageError(option + " " + name + ": " + e.what());
    }
    if (words.empty()) throw UsageError(option + " " + name + ": the command is empty");
    return words;
}

// The first number in text, or nullopt.
std::optional<double> first_number(const std::string& text) {
    const char* start = text.c_str();
    while (*start == ' ' || *start == '\t' || *start == '\n') ++start;
    char* end = nullptr;
    const double v = std::strtod(start, &end);
    if (end == start || !std::isfinite(v)) return std::nullopt;
    return v;
}

class CommandLoad final : public Load {
  public:
    CommandLoad(std::string name, std::vector<std::string> argv,
                std::vector<std::string> units_argv, std::filesystem::path dir)
        : name_(std::move(name)),
          argv_(std::move(argv)),
          units_argv_(std::move(units_argv)),
          dir_(std::move(dir)) {}

    void prepare() override {
        // Found now, so that a typo is one line before anything starts.
        for (const auto* argv : {&argv_, &units_argv_})
            if (!argv->empty() && !find_on_path(argv->front()))
                throw UsageError(name_ + ": " + argv->front() +
                                 " is not an executable file (nor on PATH)");
    }

    void run(LoadCounters& counters) override {
        SpawnOptions options = in_callers_group(-1, -1, -1);
        options.cwd = dir_;
        for (bool first = true;; first = false) {
            if (!first) counters.restarts.fetch_add(1, std::memory_order_relaxed);
            const auto started = Clock::now();
            const pid_t pid = spawn(argv_, options);
            int status = 0;
            while (::waitpid(pid, &status, WNOHANG) == 0) {
                std::this_thread::sleep_for(kPollInterval);
                if (!count_units(counters)) return;
            }
            const auto ran = Clock::now() - started;
            if (ran < kShortestRun) std::this_thread::sleep_for(kShortestRun - ran);
        }
    }

    nlohmann::json facts() const override {
        nlohmann::json j = {{"command", argv_}};
        if (!units_argv_.empty()) j["units_command"] = units_argv_;
        return j;
    }

  private:
    // Adds the units command's growth since its last reading; false (after
    // counters.fail) when it printed no number. A reading below the last is
    // a counter that began again (the command restarted): all of it is new.
    bool count_units(LoadCounters& counters) {
        if (units_argv_.empty()) return true;
        SpawnOptions options;
        options.cwd = dir_;  // where the load's command works
        auto value = first_number(command_output(units_argv_, options));
        if (!value) {
            counters.fail("--load-cmd-units " + name_ + ": " + join_words(units_argv_) +
                          " printed no number");
            return false;
        }
        if (last_) {
            const double grown = *value >= *last_ ? *value - *last_ : *value;
            counters.units.fetch_add(static_cast<std::uint64_t>(std::llround(grown * kUnitsScale)),
                                     std::memory_order_relaxed);
        }
        last_ = value;
        return true;
    }

    std::string name_;
    std::vector<std::string> argv_, units_argv_;
    std::filesystem::path dir_;
    std::optional<double> last_;
};

// An entry's strings, which its LoadInfo views, with the entry.
struct CommandLoadEntry {
    std::string name, help, command;
    std::vector<std::string> argv, units_argv;
    LoadInfo info;
};

// A deque: entries never move, so the views into them stay good.
std::deque<CommandLoadEntry>& command_entries() {
    static std::deque<CommandLoadEntry> entries;
    return entries;
}

CommandLoadEntry* entry_of(const LoadInfo& info) {
    for (auto& e : command_entries())
        if (&e.info == &info) return &e;
    return nullptr;
}

}  // namespace

const LoadInfo& make_command_load_entry(const std::string& name, const std::string& command) {
    auto argv = command_words("--load-cmd", name, command);
    CommandLoadEntry& e = command_entries().emplace_back();
    e.name = name;
    e.command = command;
    e.argv = std::move(argv);
    e.help = "your command: " + join_words(e.argv);
    e.info.name = e.name;
    e.info.help = e.help;
    e.info.classes = LoadClass::user;
    e.info.sets = LoadSets::by_name;
    e.info.make = [&e](const LoadEnv& env) -> std::unique_ptr<Load> {
        return std::make_unique<CommandLoad>(e.name, e.argv, e.units_argv, env.dir);
    };
    return e.info;
}

std::optional<std::string> command_of(const LoadInfo& info) {
    if (const CommandLoadEntry* e = entry_of(info)) return e->command;
    return std::nullopt;
}

void set_units_command(const LoadInfo& info, const std::string& units_command) {
    CommandLoadEntry* e = entry_of(info);
    if (!e) throw std::logic_error("set_units_command: not a command load");
    e->units_argv = command_words("--load-cmd-units", e->name, units_command);
    e->info.unit = "units";
    e->info.unit_divisor = kUnitsScale;
}

}  // namespace contest
