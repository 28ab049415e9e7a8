#include "contest/run/places/delegated_turn.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "contest/run/plan/run_order.h"
#include "contest/sys/errors.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"
#include "contest/sys/utc_timestamp.h"

namespace contest {

namespace fs = std::filesystem;

RunJournal delegated_turn_journal(const DelegatedTurn& turn) {
    RunJournal journal;
    journal.started_at = utc_timestamp();
    RunConfig& c = journal.config;
    if (turn.config) c = *turn.config;
    c.label = turn.label;
    c.runs = turn.runs;
    c.auto_runs.reset();
    c.order = RunOrder::rounds;
    c.seed = turn.seed;
    c.loads = turn.loads;
    c.workload.workdir = c.load.workdir = turn.workdir;
    c.workload.opened_workdir.reset();
    c.load.opened_workdir.reset();
    c.results_dir = turn.results;
    c.start_barrier = turn.start_barrier;
    c.vm.duet = false;
    c.vm.runs_per_boot.reset();
    // This host's recorder keeps what comes back.
    c.sinks.clear();
    c.place = RunPlace::host;
    c.kernels.clear();
    c.boot_appends.clear();
    c.delegated.reset();
    c.resume.clear();
    c.stop_rule = nullptr;
    c.command_line = {"run", "--journal"};
    return journal;
}

std::vector<std::string> delegated_run_words(const std::string& journal) {
    return {"run", "--journal=" + journal};
}

// The other contest's root writes its results folder, so what is read
// there is untrusted: every step opened under its folder's descriptor with no link
// followed, regular files only, non-blocking (a FIFO never blocks) and
// bounded. The share's model keeps what the guest makes as plain files, but
// nothing here counts on it.
class BroughtBackReader {
  public:
    BroughtBackReader(std::vector<ResultFile>& files, std::vector<std::string>& bad)
        : files_(files), bad_(bad) {}

    void walk(int dirfd, const fs::path& shown, int depth) {
        DIR* d = ::fdopendir(::fcntl(dirfd, F_DUPFD_CLOEXEC, 3));
        if (!d) return skip(shown, std::strerror(errno));
        std::vector<std::string> names;
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            // QEMU's own metadata of a 9p share (mapped-file), which the
            // guest cannot see.
            if (name != "." && name != ".." && name != ".virtfs_metadata") names.push_back(name);
        }
        ::closedir(d);
        std::sort(names.begin(), names.end());
        for (const auto& name : names) entry(dirfd, name, shown / name, depth);
    }

  private:
    void entry(int dirfd, const std::string& name, const fs::path& shown, int depth) {
        struct stat st {};
        if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            return skip(shown, std::strerror(errno));
        if (S_ISLNK(st.st_mode)) return skip(shown, "a symbolic link, not followed");
        if (S_ISDIR(st.st_mode)) {
            // The other contest writes results/LABEL/FILE.json.
            if (depth >= kDepth) return skip(shown, "too deep, not read");
            UniqueFd sub(::openat(dirfd, name.c_str(),
                                  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
            if (sub.get() < 0) return skip(shown, std::strerror(errno));
            return walk(sub.get(), shown, depth + 1);
        }
        if (!name.ends_with(".json")) return;
        RegularFileRead got = read_regular_file_at(dirfd, name.c_str(), kMaxResultFileBytes, false);
        if (got.refusal == RegularFileRead::Refusal::too_large)
            return skip(shown, "larger than " + std::to_string(kMaxResultFileBytes >> 20) + " MiB");
        if (got.refusal != RegularFileRead::Refusal::none) return skip(shown, got.why());
        try {
            files_.push_back(result_from_text(got.text, printable(shown.string())));
            files_.back().path = shown;
        } catch (const UsageError& e) {
            bad_.push_back(e.what());
        }
    }

    void skip(const fs::path& path, const std::string& why) {
        bad_.push_back(printable(path.string()) + ": " + why);
    }

    static constexpr int kDepth = 4;
    std::vector<ResultFile>& files_;
    std::vector<std::string>& bad_;
};

ResultBroughtBack read_result_brought_back(const fs::path& results) {
    ResultBroughtBack got;
    std::vector<ResultFile> files;
    std::vector<std::string> bad;
    UniqueFd dir(::open(results.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() >= 0)
        BroughtBackReader(files, bad).walk(dir.get(), results, 0);
    else if (errno != ENOENT)
        bad.push_back(printable(results.string()) + ": " +
                      (errno == ENOTDIR || errno == ELOOP ? "not a folder (a link is not followed)"
                                                          : std::strerror(errno)));
    if (!files.empty())
        got.result = std::move(files.front());
    else
        got.problem =
            bad.empty() ? "no result file in " + printable(results.string()) : join(bad, "; ");
    return got;
}

std::vector<RunRecord> runs_brought_back(const DelegatedTurn& turn,
                                         const std::optional<ResultFile>& result,
                                         const std::string& failure, RunStatus failed_status,
                                         const std::string& who, const std::string& detail) {
    std::vector<RunRecord> runs;
    const unsigned times = std::max(1u, turn.runs);
    for (unsigned k = 1; k <= times; ++k)
        for (const auto& load : turn.loads) {
            const RunRecord* found = nullptr;
            if (result)
                for (const auto& r : result->runs)
                    // The other contest numbers its rounds from 1 (--order rounds).
                    if (r.load == load && (times == 1 || r.round == static_cast<int>(k)))
                        found = &r;
            RunRecord rec;
            if (found) {
                rec = *found;
            } else {
                rec.load = load;
                rec.status = failed_status;
                rec.reason = failure.empty()
                                 ? who + " did not run " + load +
                                       (times == 1 ? "" : " (its run " + std::to_string(k) + ")") +
                                       detail
                                 : failure;
            }
            rec.boot = static_cast<int>(turn.round);
            rec.run_in_boot = static_cast<int>(k);
            rec.index = rec.round = static_cast<int>((turn.round - 1) * times + k);
            runs.push_back(rec);
        }
    return runs;
}

}  // namespace contest
