#include "contest/run/record/result_writer.h"
#include "contest/sys/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/json_text.h"
#include "contest/sys/progress.h"
#include "contest/sys/unique_fd.h"

namespace contest {

void ResultWriter::save(const ResultFile& result) const {
    const std::string text = json_text(to_json(result)) + "\n";
    try {
        write_file_atomically(path_, text);
    } catch (const EnvironmentError& e) {
        throw SaveFailed(e.what());
    }
    for (const auto& sink : sinks_) sink->saved(result, path_, text);
}

void ResultWriter::save_interrupted(const ResultFile& result) const {
    if (result.runs.empty()) {
        say("interrupted before a run of " + result.label + " finished: no file for it");
        return;
    }
    try {
        save(result);
        say("interrupted; " + std::to_string(result.runs.size()) + " finished run" +
            (result.runs.size() == 1 ? "" : "s") + " of " + result.label + " kept in " +
            path_.string());
    } catch (const SaveFailed& e) {
        say(std::string("interrupted; ") + e.what());
    }
}

void check_results_folder(const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw EnvironmentError("cannot create results folder " + dir.string() + ": " +
                               ec.message());
    const auto probe = dir / (".contest-write-check." + std::to_string(::getpid()));
    const UniqueFd fd(
        ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd.get() < 0)
        throw EnvironmentError("cannot write result files in " + dir.string() + ": " +
                               std::strerror(errno));
    ::unlink(probe.c_str());
}

std::filesystem::path new_result_path(const std::filesystem::path& dir, const std::string& label,
                                      const std::string& started_at) {
    std::string stamp = started_at;
    std::erase(stamp, ':');
    std::filesystem::path path = dir / label / (stamp + ".json");
    std::error_code ec;
    const auto taken = [&](const std::filesystem::path& p) {
        return std::filesystem::exists(std::filesystem::symlink_status(p, ec)) ||
               std::filesystem::exists(std::filesystem::symlink_status(run_journal_beside(p), ec));
    };
    for (int i = 2; taken(path); ++i)
        path = dir / label / (stamp + "-" + std::to_string(i) + ".json");
    return path;
}

std::filesystem::path run_journal_beside(const std::filesystem::path& result) {
    return std::filesystem::path(result).replace_extension(kJournalExtension);
}

std::filesystem::path result_beside_journal(const std::filesystem::path& journal) {
    return std::filesystem::path(journal).replace_extension(".json");
}

}  // namespace contest
