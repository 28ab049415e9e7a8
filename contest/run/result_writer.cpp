#include "contest/run/result_writer.h"
#include "contest/sys/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "contest/sys/errors.h"
#include "contest/sys/json_text.h"
#include "contest/sys/unique_fd.h"

namespace contest {

void ResultWriter::save(const ResultFile& result) const {
    try {
        write_file_atomically(path_, json_text(to_json(result)) + "\n");
    } catch (const EnvironmentError& e) {
        throw SaveFailed(e.what());
    }
}

void ResultWriter::save_interrupted(const ResultFile& result) const {
    if (result.runs.empty()) {
        std::fprintf(stderr, "contest: interrupted before a run of %s finished: no file for it\n",
                     result.label.c_str());
        return;
    }
    try {
        save(result);
        std::fprintf(stderr, "contest: interrupted; %zu finished run%s of %s kept in %s\n",
                     result.runs.size(), result.runs.size() == 1 ? "" : "s",
                     result.label.c_str(), path_.c_str());
    } catch (const SaveFailed& e) {
        std::fprintf(stderr, "contest: interrupted; %s\n", e.what());
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
    for (int i = 2; std::filesystem::exists(path); ++i)
        path = dir / label / (stamp + "-" + std::to_string(i) + ".json");
    return path;
}

}  // namespace contest
