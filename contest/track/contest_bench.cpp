#include "contest/track/contest_bench.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <optional>
#include <thread>

#include "contest/bisect/bisect_state.h"
#include "contest/boot/boot_state.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/log_tail.h"
#include "contest/sys/process.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"

namespace contest::track {

namespace fs = std::filesystem;

namespace {

// The log's last line that says something: why a run failed.
std::string last_words(const fs::path& log) {
    const std::vector<std::string> lines = split_lines(tail_of_file(log, 20));
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (!trim_blanks(*it).empty()) return printable(trim_blanks(*it));
    return "no output";
}

// The newest file of `label` in a run's folder.
std::optional<ResultFile> label_file(const fs::path& folder, const std::string& label) {
    std::vector<std::string> unread;
    std::optional<ResultFile> newest;
    for (auto& f : read_result_paths({folder / label}, unread))
        if (f.label == label && (!newest || f.started_at > newest->started_at)) newest = f;
    return newest;
}

}  // namespace

int ContestBench::run_contest(const std::vector<std::string>& words, const fs::path& folder,
                              double timeout_s) {
    fs::create_directories(folder);
    std::vector<std::string> argv = {s_.binary.string()};
    argv.insert(argv.end(), words.begin(), words.end());
    SpawnOptions options;
    options.log_to(folder / "contest.log");
    // In the track's process group, so Ctrl-C reaches the run as it
    // reaches the track; told to stop (TERM: its guests stopped, its
    // files kept) when the track dies.
    options.ties.own_group = false;
    options.ties.death_signal = SIGTERM;
    const pid_t pid = spawn(argv, options);
    // One loop waits for the run, its bound and an interrupt: a signal to
    // the track alone (kill PID, not its group) must stop its run too.
    const auto started = std::chrono::steady_clock::now();
    const auto since = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    // TERM (its guests stopped, its files kept), then KILL a minute later.
    const auto stop = [&] {
        ::kill(pid, SIGTERM);
        const double told = since();
        std::optional<int> ended;
        while (!(ended = reap_if_exited(pid)) && since() < told + 60)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (!ended) {
            ::kill(pid, SIGKILL);
            wait_for_exit(pid);
        }
    };
    std::optional<int> ended;
    while (!(ended = reap_if_exited(pid))) {
        if (interrupted()) {
            stop();
            throw Interrupted();
        }
        if (timeout_s > 0 && since() >= timeout_s) {
            stop();
            char limit[64];
            std::snprintf(limit, sizeof limit, "%.0f s", timeout_s);
            throw PointFailed(std::string("its run took longer than ") + limit + ": stopped (" +
                              last_words(folder / "contest.log") + ")");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const int status = *ended;
    if (WIFEXITED(status)) {
        if (WEXITSTATUS(status) == kExitInterrupted) throw Interrupted();
        return WEXITSTATUS(status);
    }
    if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM))
        throw Interrupted();
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::vector<std::string> ContestBench::run_of(const std::vector<std::string>& kernels,
                                              unsigned rounds, const fs::path& folder) const {
    // Kept in the run's folder, out of the database: the track stores the
    // point's own file, once (a comparison's are evidence, not a point).
    std::vector<std::string> words = {"run"};
    words.insert(words.end(), kernels.begin(), kernels.end());
    for (std::string word : {"--runs=" + std::to_string(rounds), "--results=" + folder.string(),
                             std::string("--no-history")})
        words.push_back(std::move(word));
    words.insert(words.end(), s_.run_words.begin(), s_.run_words.end());
    return words;
}

ContestBenchSettings bench_settings_of(const TrackOptions& options) {
    ContestBenchSettings settings;
    settings.tree = options.tree;
    settings.run_words = options.run_words;
    settings.point_rounds = options.point_rounds;
    settings.confirm_rounds = options.confirm_rounds;
    settings.measure = options.measure.text();
    settings.boot = options.boot;
    return settings;
}

bool ContestBench::goes_on_by_itself(const fs::path& folder) const {
    std::error_code ec;
    return s_.boot && fs::is_regular_file(fs::symlink_status(folder / kRunJournalName, ec));
}

std::vector<ResultFile> ContestBench::boot_run_files(const fs::path& folder,
                                                     const std::vector<std::string>& labels,
                                                     std::optional<int> code) const {
    // A start refused before its state was written leaves no journal, or
    // one without the boot run's section.
    const fs::path journal = folder / kRunJournalName;
    if (!goes_on_by_itself(folder) ||
        !read_journal_json(journal, "the point's --boot run").contains("boot_run"))
        throw PointFailed((code ? "contest run --boot exited " + std::to_string(*code)
                                : std::string("its --boot run")) +
                          " before its first reboot: " + last_words(folder / "contest.log"));
    const BootState state = read_boot_state(journal);
    if (!state.finished())
        throw AcrossReboots("the --boot run in " + printable(folder.string()) + " (" +
                            boot_phase_name(state.phase) + ")");
    std::vector<ResultFile> files;
    for (const std::string& label : labels) {
        auto file = label_file(folder, label);
        if (!file)
            throw PointFailed("its --boot run ended (" + std::string(boot_phase_name(state.phase)) +
                              (state.note.empty() ? "" : ": " + printable(state.note)) +
                              ") without " + label + "'s file");
        files.push_back(std::move(*file));
    }
    return files;
}

std::vector<ResultFile> ContestBench::run_files(const std::vector<std::string>& kernels,
                                                const std::vector<std::string>& labels,
                                                unsigned rounds, const fs::path& folder,
                                                const std::string& what) {
    std::optional<int> code;
    if (!goes_on_by_itself(folder))
        code = run_contest(run_of(kernels, rounds, folder), folder, s_.run_timeout_s);
    if (s_.boot) return boot_run_files(folder, labels, code);
    std::vector<ResultFile> files;
    for (const std::string& label : labels) {
        auto file = label_file(folder, label);
        if (!file)
            throw PointFailed(what + " exited " + std::to_string(code.value_or(0)) + ": " +
                              last_words(folder / "contest.log"));
        files.push_back(std::move(*file));
    }
    return files;
}

fs::path ContestBench::measure_point(const std::string& commit, const fs::path& folder) {
    return run_files({kernel(kPointLabel, commit)}, {kPointLabel}, s_.point_rounds, folder,
                     "contest run")
        .front()
        .path;
}

std::vector<ResultFile> ContestBench::compare(const std::string& before, const std::string& after,
                                              const fs::path& folder) {
    return run_files({kernel(kBeforeLabel, before), kernel(kAfterLabel, after)},
                     {kBeforeLabel, kAfterLabel}, s_.confirm_rounds, folder,
                     "the comparison's contest run");
}

bisect::BisectState ContestBench::bisect(const std::string& good, const std::string& bad,
                                         const fs::path& folder) {
    std::vector<std::string> words = {"bisect"};
    if (s_.boot) words.push_back("--boot");
    if (s_.bisect_step_max_rounds)
        words.push_back("--step-max-rounds=" + std::to_string(*s_.bisect_step_max_rounds));
    for (std::string word :
         {"--good=" + s_.tree.string() + "@" + good, "--bad=" + s_.tree.string() + "@" + bad,
          "--measure=" + s_.measure, "--results=" + folder.string(), std::string("--")})
        words.push_back(std::move(word));
    words.insert(words.end(), s_.run_words.begin(), s_.run_words.end());
    // Its log beside its folder: the bisection's folder is its own.
    const fs::path beside = folder.parent_path() / "bisect-log";
    const int code = run_contest(words, beside, s_.bisect_timeout_s);
    if (!bisect::has_bisect_state(folder))
        throw EnvironmentError("contest track: contest bisect exited " + std::to_string(code) +
                               " before its state was made: " + last_words(beside / "contest.log"));
    bisect::BisectState state = bisect::read_bisect_state(folder);
    if (!state.finished && state.failure.empty()) {
        // Under --boot its parts go on by themselves, each after the last
        // (or the same command again, here, once the machine is back).
        if (s_.boot)
            throw AcrossReboots("the bisection in " + printable(folder.string()) + " (" +
                                last_words(beside / "contest.log") + ")");
        throw EnvironmentError("contest track: contest bisect exited " + std::to_string(code) +
                               " short of an answer: " + last_words(beside / "contest.log"));
    }
    return state;
}

}  // namespace contest::track
