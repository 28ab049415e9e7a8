// A load of the user's own (--load-cmd NAME=CMD): stress-ng, fio,
// hackbench, a database, run as contest runs its loads. The command is split
// into words (no shell) and started in the load's process group, so that the
// load's stop stops it and all it starts, and its CPU is the load's LCPU. Its
// stderr goes to <workdir>/load-NAME.log (ProgramLog: emptied at each start,
// kept small), whose last line a failure quotes.
//
// A load must stay up: a command that ends with a status other than 0 (or
// by a signal), or ends by itself sooner than kShortestRun after its start,
// fails the load, and so the run. One that ends with status 0 after longer
// is started again at once, and each new start is counted as a restart,
// which the run says; so there is a start every kShortestRun at the most.
//
// With a units command (--load-cmd-units NAME=CMD), that command is run
// every quarter second and the number it prints is taken as the work done
// so far: Loads is its growth over the workload's window. A count of work
// done goes down only when its command began again: a reading below the
// last one after a restart starts a new count, and one without a restart,
// or a reading that is no count (negative, too big, not a number), fails
// the load, saying what it read. Both run in the load's private folder.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/process.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"
#include "loads/command_load.h"
#include "loads/load.h"
#include "loads/load_files.h"

namespace contest {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kPollInterval = std::chrono::milliseconds(250);
// How long a command must have run before it may end (status 0) and be
// started again: a load that ends sooner is one that cannot stay up.
constexpr double kShortestRun = 5;
// A units command still running after this is stuck, not counting.
constexpr auto kUnitsAnswerWithin = std::chrono::milliseconds(10'000);
// The units command's number is kept to a thousandth.
constexpr double kUnitsScale = 1000;
// The biggest reading taken: what the counters hold.
constexpr long double kMostUnits = std::numeric_limits<std::uint64_t>::max();

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

// A units command's reading: the first word of its output, a count of the
// work done so far (digits, with a decimal point or e-notation if need be),
// or why it is none.
struct Reading {
    long double value = 0;
    std::string bad;  // empty: a good reading
};

Reading read_units(const std::string& output) {
    std::istringstream in(output);
    std::string word;
    in >> word;
    if (word.empty()) return {0, "printed nothing (or failed)"};
    const std::string shown = printable(word.size() > 40 ? word.substr(0, 40) + "..." : word);
    // strtold alone would take hex, "inf", "nan" and a number with words after it.
    char* end = nullptr;
    errno = 0;
    const long double v = std::strtold(word.c_str(), &end);
    if (word.find_first_not_of("0123456789.eE+-") != std::string::npos ||
        end != word.c_str() + word.size())
        return {0, "printed '" + shown + "', not a number"};
    if (std::signbit(v) && v != 0)
        return {0, "printed " + shown + ": a count of work done is 0 or more"};
    if (!(v <= kMostUnits))
        return {0, "printed " + shown + ": more than contest can count (at most " +
                       std::to_string(std::numeric_limits<std::uint64_t>::max()) + ")"};
    return {v, ""};
}

class CommandLoad final : public Load {
  public:
    CommandLoad(std::string name, std::vector<std::string> argv,
                std::vector<std::string> units_argv, const LoadEnv& env)
        : name_(std::move(name)),
          argv_(std::move(argv)),
          units_argv_(std::move(units_argv)),
          dir_(env.dir),
          options_(env.options) {}

    void prepare() override {
        // Found now, so that a typo is one line before anything starts.
        for (const auto* argv : {&argv_, &units_argv_})
            if (!argv->empty() && !find_on_path(argv->front()))
                throw UsageError(name_ + ": " + argv->front() +
                                 " is not an executable file (nor on PATH)");
        log_.emplace(Workdir::opened_or_open(options_.opened_workdir, options_.workdir),
                     "load-" + name_ + ".log");
    }

    void run(LoadCounters& counters) override {
        SpawnOptions options = in_callers_group(-1, -1, log_->fd());
        options.cwd = dir_;
        for (bool first = true;; first = false) {
            if (!first) {
                counters.restarts.fetch_add(1, std::memory_order_relaxed);
                restarted_ = true;
            }
            log_->empty();
            const auto started = Clock::now();
            const pid_t pid = spawn(argv_, options);
            std::optional<int> ended;
            while (!(ended = reap_if_exited(pid))) {
                std::this_thread::sleep_for(kPollInterval);
                log_->keep_bounded();
                if (!count_units(counters)) return;
            }
            const int status = *ended;
            const double ran_s = std::chrono::duration<double>(Clock::now() - started).count();
            const bool ended_well = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            if (ended_well && ran_s >= kShortestRun) continue;
            std::string why = ended_well
                                  ? "its command ended by itself after " + fixed(ran_s, 1) +
                                        " s (exit 0), sooner than the " + fixed(kShortestRun, 0) +
                                        " s a load must run to be started again"
                                  : "its command ended with " + describe_wait_status(status) +
                                        " after " + fixed(ran_s, 1) + " s";
            const std::string line = log_->last_line();
            counters.fail(why + ": " + (line.empty() ? "(nothing on stderr)" : line) +
                          "; its stderr is in " + log_->path().string());
            return;
        }
    }

    nlohmann::json facts() const override {
        nlohmann::json j = {{"command", argv_}};
        if (!units_argv_.empty()) j["units_command"] = units_argv_;
        return j;
    }

  private:
    // Adds the units command's growth since its last reading; false (after
    // counters.fail) when the reading is no count of work done, or went down
    // with no restart of the command to begin the count again.
    bool count_units(LoadCounters& counters) {
        if (units_argv_.empty()) return true;
        SpawnOptions options;
        options.cwd = dir_;  // where the load's command works
        const std::string what = "--load-cmd-units " + name_ + ": " + join_words(units_argv_);
        const std::optional<std::string> output =
            command_output_within(units_argv_, kUnitsAnswerWithin, options);
        if (!output) {
            counters.fail(what + " gave no answer within " +
                          std::to_string(kUnitsAnswerWithin.count() / 1000) +
                          " s: a count of work done is read in a moment");
            return false;
        }
        const Reading reading = read_units(*output);
        if (!reading.bad.empty()) {
            counters.fail(what + " " + reading.bad);
            return false;
        }
        if (last_) {
            long double grown = reading.value - *last_;
            if (grown < 0) {
                if (!restarted_) {
                    counters.fail(what + " read " + number_text(static_cast<double>(*last_)) +
                                  ", then " + number_text(static_cast<double>(reading.value)) +
                                  ", with no restart of its command between: a count of work "
                                  "done never goes down, so this run's Loads cannot be trusted");
                    return false;
                }
                grown = reading.value;  // the command began its count again
                restarted_ = false;
            }
            const long double steps = std::roundl(grown * kUnitsScale);
            const std::uint64_t so_far = counters.units.load(std::memory_order_relaxed);
            if (steps >
                static_cast<long double>(std::numeric_limits<std::uint64_t>::max() - so_far)) {
                counters.fail(what + " grew by " + number_text(static_cast<double>(grown)) +
                              ": more than contest can count");
                return false;
            }
            counters.units.fetch_add(static_cast<std::uint64_t>(steps), std::memory_order_relaxed);
        }
        last_ = reading.value;
        return true;
    }

    std::string name_;
    std::vector<std::string> argv_, units_argv_;
    std::filesystem::path dir_;
    LoadOptions options_;
    std::optional<ProgramLog> log_;
    std::optional<long double> last_;
    // The command was started again since the count last went down: the
    // next reading may begin a new count.
    bool restarted_ = false;
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
        return std::make_unique<CommandLoad>(e.name, e.argv, e.units_argv, env);
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
