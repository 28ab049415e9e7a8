#include "contest/drive/contest_bench.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <optional>
#include <thread>

#include "contest/bisect/bisect_state.h"
#include "contest/boot/boot_files.h"
#include "contest/boot/boot_state.h"
#include "contest/run/plan/places.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/log_tail.h"
#include "contest/sys/process.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/utc_timestamp.h"

namespace contest::drive {

using track::AcrossReboots;
using track::PointFailed;

namespace fs = std::filesystem;

namespace {

// The log's last line that says something: why a run failed.
std::string last_words(const fs::path& log) {
    const std::vector<std::string> lines = split_lines(tail_of_file(log, 20));
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (!trim_blanks(*it).empty()) return printable(trim_blanks(*it));
    return "no output";
}

// Each of `labels`' file among `files` (a run's, as its journal names
// them), in that order; nullopt for one it does not hold.
std::vector<std::optional<ResultFile>> files_of(const std::vector<fs::path>& files,
                                                const std::vector<std::string>& labels) {
    std::vector<std::string> unread;
    std::vector<std::optional<ResultFile>> out(labels.size());
    for (ResultFile& f : read_result_paths(files, unread))
        for (std::size_t i = 0; i < labels.size(); ++i)
            if (f.label == labels[i] && !out[i]) out[i] = std::move(f);
    return out;
}

// The journal of the run in `folder`: the folder's own (.run-journal),
// named as a --boot run names its own (the folder's links resolved,
// boot_files.h), which `contest run --journal` makes the run's journal.
fs::path journal_in(const fs::path& folder) {
    return boot_state_path(folder);
}

std::vector<std::string> labels_of(const std::vector<KernelSpec>& kernels) {
    std::vector<std::string> labels;
    for (const KernelSpec& k : kernels) labels.push_back(k.label);
    return labels;
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

RunJournal track_run_journal(const ContestBenchSettings& settings,
                             const std::vector<KernelSpec>& kernels, unsigned rounds,
                             const fs::path& folder) {
    const RunJournal& run = settings.run;
    RunJournal journal;
    journal.config = run.config;
    journal.boot = run.boot;
    journal.started_at = utc_timestamp();
    RunConfig& config = journal.config;
    config.kernels = kernels;
    config.runs = rounds;
    config.results_dir = fs::absolute(folder).lexically_normal();
    // Kept in the run's folder, out of the database: the track stores the
    // point's own file, once (a comparison's are evidence, not a point).
    std::erase_if(config.sinks,
                  [](const SinkSpec& sink) { return sink.kind == SinkKind::results_database; });
    // What its result files record as how it was run: the words that would
    // run the same by hand (the config parsed of the track's run words is
    // the journal's; nothing parses these).
    config.command_line = {"run"};
    for (const KernelSpec& k : kernels) config.command_line.push_back(kernel_word(config.place, k));
    for (std::string word :
         {"--runs=" + std::to_string(rounds), "--results=" + config.results_dir.string(),
          std::string("--no-history")})
        config.command_line.push_back(std::move(word));
    config.command_line.insert(config.command_line.end(), settings.run_words.begin(),
                               settings.run_words.end());
    return journal;
}

ContestBench::ContestBench(ContestBenchSettings settings) : s_(std::move(settings)) {
    // A point's run checked now as `contest run --journal` will check it
    // (run_journal.h): a config no point can run fails the track's start.
    try {
        check_run_options(
            track_run_journal(s_, {kernel(track::kPointLabel, "HEAD")}, s_.point_rounds, "/")
                .config);
    } catch (const UsageError& e) {
        throw UsageError(std::string("contest track: the run words: ") + e.what());
    }
}

bool ContestBench::goes_on_by_itself(const fs::path& folder) const {
    std::error_code ec;
    const fs::path journal = journal_in(folder);
    if (!s_.boot || !fs::is_regular_file(fs::symlink_status(journal, ec))) return false;
    // The journal the bench made goes on once its run started (its boot
    // state written); one that does not read is asked, and says why.
    try {
        return JournalFile::read(journal, "the point's --boot run").has(kBootStateSection);
    } catch (const std::exception&) {
        return true;
    }
}

std::vector<ResultFile> ContestBench::boot_run_files(const fs::path& folder,
                                                     const std::vector<std::string>& labels,
                                                     std::optional<int> code) const {
    // A start refused before its state was written leaves the journal the
    // bench made, without the boot run's section.
    const fs::path journal = journal_in(folder);
    if (!goes_on_by_itself(folder))
        throw PointFailed((code ? "contest run --boot exited " + std::to_string(*code)
                                : std::string("its --boot run")) +
                          " before its first reboot: " + last_words(folder / "contest.log"));
    const BootState state = read_boot_state(journal);
    if (!state.finished())
        throw AcrossReboots("the --boot run in " + printable(folder.string()) + " (" +
                            boot_phase_name(state.phase) + ")");
    std::vector<fs::path> named;
    for (const BootLabel& l : state.labels)
        if (!l.result.empty()) named.emplace_back(l.result);
    std::vector<ResultFile> files;
    const auto found = files_of(named, labels);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (!found[i])
            throw PointFailed("its --boot run ended (" + std::string(boot_phase_name(state.phase)) +
                              (state.note.empty() ? "" : ": " + printable(state.note)) +
                              ") without " + labels[i] + "'s file");
        files.push_back(*found[i]);
    }
    return files;
}

std::vector<ResultFile> ContestBench::run_files(const std::vector<KernelSpec>& kernels,
                                                unsigned rounds, const fs::path& folder,
                                                const std::string& what) {
    const std::vector<std::string> labels = labels_of(kernels);
    const fs::path journal = journal_in(folder);
    std::optional<int> code;
    if (!goes_on_by_itself(folder)) {
        fs::create_directories(folder);
        write_run_journal(journal, track_run_journal(s_, kernels, rounds, folder));
        code = run_contest({"run", "--journal", journal.string()}, folder, s_.run_timeout_s);
    }
    if (s_.boot) return boot_run_files(folder, labels, code);
    const auto failed = [&](const std::string& why) {
        return PointFailed(what + " exited " + std::to_string(code.value_or(0)) + ": " + why);
    };
    std::vector<fs::path> named;
    try {
        named = read_run_journal(journal).results;
    } catch (const UsageError& e) {
        throw failed(std::string("its journal: ") + e.what());
    }
    std::vector<ResultFile> files;
    const auto found = files_of(named, labels);
    for (const auto& file : found) {
        if (!file) throw failed(last_words(folder / "contest.log"));
        files.push_back(*file);
    }
    return files;
}

fs::path ContestBench::measure_point(const std::string& commit, const fs::path& folder) {
    return run_files({kernel(track::kPointLabel, commit)}, s_.point_rounds, folder, "contest run")
        .front()
        .path;
}

std::vector<ResultFile> ContestBench::compare(const std::string& before, const std::string& after,
                                              const fs::path& folder) {
    return run_files({kernel(track::kBeforeLabel, before), kernel(track::kAfterLabel, after)},
                     s_.confirm_rounds, folder, "the comparison's contest run");
}

bisect::BisectState ContestBench::bisect(const std::string& good, const std::string& bad,
                                         const fs::path& folder) {
    std::vector<std::string> words = {"bisect"};
    if (s_.boot) words.push_back("--boot");
    if (s_.bisect_step_max_rounds)
        words.push_back("--step-max-rounds=" + std::to_string(*s_.bisect_step_max_rounds));
    for (std::string word :
         {"--good=" + s_.tree.string() + "@" + good, "--bad=" + s_.tree.string() + "@" + bad,
          "--measure=" + s_.measure.text(), "--results=" + folder.string(), std::string("--")})
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

}  // namespace contest::drive
