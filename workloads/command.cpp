// The command workload: the user's own prepare, clean and timed commands,
// each given as one string, split into argv and run without a shell in the
// workdir.
#include <filesystem>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/progress.h"
#include "contest/sys/spawn.h"
#include "contest/sys/words.h"
#include "contest/sys/workdir.h"
#include "workloads/workload_kinds.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// Splits one option's string, naming the option in any error.
std::vector<std::string> split_option(const std::string& option, const std::string& text) {
    try {
        return split_words(text);
    } catch (const UsageError& e) {
        throw UsageError(option + ": " + e.what());
    }
}

class CommandWorkload : public Workload {
  public:
    explicit CommandWorkload(const WorkloadOptions& options)
        : options_(options),
          timed_(split_option("--workload-cmd", options.workload_cmd)),
          prepare_(split_option("--prepare-cmd", options.prepare_cmd)),
          clean_(split_option("--clean-cmd", options.clean_cmd)) {
        if (timed_.empty())
            throw UsageError("--workload-cmd: the command workload needs the command to time");
    }

    std::string name() const override { return "command"; }

    void prepare(Progress& progress) override {
        Workdir::opened_or_open(options_.opened_workdir,
                                options_.workdir);  // refuses a workdir others could plant links in
        if (prepare_.empty()) return;
        progress.status("command: preparing: " + join_words(prepare_));
        run_step(prepare_, "--prepare-cmd", "command-prepare.log");
    }

    void clean() override {
        reset_log(log_path());
        if (!clean_.empty()) run_step(clean_, "--clean-cmd", "command-clean.log");
    }

    Command timed_command() const override { return Command{timed_, options_.workdir, {}}; }

    fs::path log_path() const override { return options_.workdir / "command.log"; }

    // None: the commands may work anywhere, and the workdir holds the loads'
    // own files, which a tar load must not archive. The tar loads refuse an
    // empty tree with a clear message.
    fs::path source_tree() const override { return {}; }

    nlohmann::json describe() const override {
        return {
            {"kind", "command"},   {"workload_cmd", timed_},           {"prepare_cmd", prepare_},
            {"clean_cmd", clean_}, {"cwd", options_.workdir.string()},
        };
    }

  private:
    void run_step(const std::vector<std::string>& argv, const std::string& option,
                  const std::string& log_name) {
        SpawnOptions spawn;
        spawn.cwd = options_.workdir;
        spawn.log_to(options_.workdir / log_name);
        reset_log(options_.workdir / log_name);
        run_checked(argv, spawn, option + " '" + join_words(argv) + "'");
    }

    WorkloadOptions options_;
    std::vector<std::string> timed_, prepare_, clean_;
};

}  // namespace

std::unique_ptr<Workload> make_command_workload(const WorkloadOptions& options) {
    return std::make_unique<CommandWorkload>(options);
}

}  // namespace contest
