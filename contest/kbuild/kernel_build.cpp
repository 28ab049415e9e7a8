#include "contest/kbuild/kernel_build.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "contest/observe/kernel_facts.h"
#include "contest/sys/errors.h"
#include "contest/sys/log_tail.h"
#include "contest/sys/number_text.h"
#include "contest/sys/process.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/text_file.h"

namespace contest::kbuild {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The log's last lines, on one line.
std::string log_tail_line(const fs::path& log, int lines) {
    std::string out;
    for (const auto& line : split_lines(tail_of_file(log, lines))) {
        const std::string shown = printable(trim_blanks(line));
        if (!shown.empty()) out += (out.empty() ? "" : " | ") + shown;
    }
    return out;
}

// One make of targets, its output appended to the log, its time on the
// progress line; StepFailed naming the stage and the log's tail.
void run_make(const MakeSettings& s, const std::vector<std::string>& targets,
              const std::string& stage, Progress& progress,
              const std::vector<std::string>& more = {}) {
    std::vector<std::string> argv = make_argv(s, targets);
    argv.insert(argv.end(), more.begin(), more.end());
    {
        std::ofstream log(s.log, std::ios::app);
        log << "contest: " << join(make_environment(s), " ") << " " << join(argv, " ") << "\n";
    }
    SpawnOptions so;
    so.log_to(s.log);
    so.env_overrides = make_environment(s);
    const auto started = Clock::now();
    const std::string line = s.head + "building: " + stage;
    progress.status(line);
    const pid_t pid = spawn(argv, so);
    GroupGuard guard(pid);
    WaitHooks hooks;
    hooks.tick = [&] {
        progress.tick(
            line + "  " +
            seconds_text(std::chrono::duration<double>(Clock::now() - started).count(), 0));
    };
    const ExitInfo info = wait_child(pid, started, hooks);
    guard.stop();
    if (info.exited_ok()) return;
    const std::string tail = log_tail_line(s.log, 6);
    throw StepFailed(s.what + ": the build failed at `make " + join(targets, " ") + "` (" +
                         info.describe() + "); the log's last lines: " +
                         (tail.empty() ? "(none)" : tail) + "; log: " + s.log.string(),
                     "make " + join(targets, " "), s.log.string());
}

std::string file_text(const fs::path& file) {
    return read_text_file(file.string()).value_or("");
}

// The label's options over the .config as merge_config.sh lays a fragment,
// what they replaced said in the log.
void merge_options(const MakeSettings& s, const LabelOptions& options, BuiltTree& built) {
    const fs::path dot_config = s.build / ".config";
    const std::string merged =
        merge_label_options(file_text(dot_config), options, &built.overridden);
    std::ofstream(dot_config, std::ios::trunc) << merged;
    std::ofstream log(s.log, std::ios::app);
    log << "contest: the label's options merged over the config (as merge_config.sh merges a "
           "fragment):\n"
        << options.text();
    for (const auto& change : built.overridden)
        log << "contest: the label's value replaced the config's: " << change_text(change) << "\n";
}

}  // namespace

std::vector<std::string> make_argv(const MakeSettings& s, const std::vector<std::string>& targets) {
    std::vector<std::string> argv = {"make",
                                     "-C",
                                     s.source.string(),
                                     "O=" + s.build.string(),
                                     "-j" + std::to_string(s.jobs),
                                     "CC=" + s.cc,
                                     "LOCALVERSION=" + s.localversion};
    argv.insert(argv.end(), targets.begin(), targets.end());
    return argv;
}

std::vector<std::string> make_environment(const MakeSettings& s) {
    return {"KBUILD_BUILD_TIMESTAMP=" + s.commit_date, "KBUILD_BUILD_USER=contest",
            "KBUILD_BUILD_HOST=contest", "KBUILD_BUILD_VERSION=1"};
}

BuiltTree build_tree(const MakeSettings& s, const ConfigChoice& config, const LabelOptions& options,
                     const fs::path& staging, Progress& progress) {
    const auto started = Clock::now();
    BuiltTree built;
    const fs::path dot_config = s.build / ".config";
    if (config.on_tinyconfig) {
        run_make(s, {"tinyconfig"}, "config (tinyconfig)", progress);
        run_make(s, {"kvm_guest.config"}, "config (kvm_guest.config)", progress);
        // Appended: kconfig reads a later line of an option over an earlier one.
        std::ofstream(dot_config, std::ios::app) << config.text;
    } else {
        std::ofstream(dot_config, std::ios::trunc) << config.text;
    }
    if (!options.empty()) merge_options(s, options, built);
    run_make(s, {"olddefconfig"}, "config (olddefconfig)", progress);
    built.dot_config = file_text(dot_config);
    if (built.dot_config.empty())
        throw StepFailed(s.what + ": make olddefconfig left no " + dot_config.string() +
                             "; log: " + s.log.string(),
                         "make olddefconfig", s.log.string());
    if (const auto lost = options_not_kept(options, built.dot_config); !lost.empty())
        throw StepFailed(
            s.what + ": make olddefconfig did not keep the label's " +
                (lost.size() == 1 ? "option " : "options ") + join(lost, ", ") +
                " (a dependency not met, or no such option in this tree); log: " + s.log.string(),
            "make olddefconfig", s.log.string());
    const auto cfg = parse_kernel_config(built.dot_config);
    const auto modules = cfg.find("CONFIG_MODULES");
    built.modules = modules != cfg.end() && modules->second == "y";
    if (built.modules) {
        run_make(s, {"bzImage", "modules"}, "bzImage and modules", progress);
        run_make(s, {"modules_install"}, "modules_install (staged)", progress,
                 {"INSTALL_MOD_PATH=" + staging.string(), "INSTALL_MOD_STRIP=1"});
    } else {
        run_make(s, {"bzImage"}, "bzImage", progress);
    }
    std::error_code ec;
    if (!fs::is_regular_file(s.build / "arch/x86/boot/bzImage", ec))
        throw StepFailed(s.what + ": make bzImage left no arch/x86/boot/bzImage in " +
                             s.build.string() + "; log: " + s.log.string(),
                         "make bzImage", s.log.string());
    built.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return built;
}

std::string compiler_version() {
    if (!find_on_path("gcc"))
        throw EnvironmentError("building a kernel needs gcc: install it (make deps-kernel)");
    const std::string line = first_line(command_output({"gcc", "--version"}));
    if (line.empty()) throw EnvironmentError("gcc --version printed nothing");
    return line;
}

std::string toolchain_text() {
    const auto first_line_of = [](const char* tool) -> std::string {
        if (!find_on_path(tool)) return "none";
        try {
            return first_line(command_output({tool, "--version"}));
        } catch (const std::exception& e) {
            return std::string("unknown (") + e.what() + ")";
        }
    };
    const auto variable = [](const char* name) {
        const char* v = std::getenv(name);
        return std::string(v ? v : "");
    };
    return "binutils: " + first_line_of("ld") + "\npahole: " + first_line_of("pahole") +
           "\nKCFLAGS: " + variable("KCFLAGS") + "\nKCPPFLAGS: " + variable("KCPPFLAGS");
}

}  // namespace contest::kbuild
