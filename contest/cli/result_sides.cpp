#include "contest/cli/result_sides.h"

#include <algorithm>
#include <filesystem>

#include "contest/report/report.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {

std::string list_labels(const std::vector<ResultFile>& files) {
    std::vector<std::string> seen;
    for (const auto& f : files)
        if (std::find(seen.begin(), seen.end(), f.label) == seen.end()) seen.push_back(f.label);
    return join(seen, ", ");
}

std::vector<ResultFile> ResultSides::resolve(const std::string& arg) {
    std::error_code ec;
    if (std::filesystem::exists(arg, ec)) return read_results_or_fail({arg});
    std::vector<ResultFile> matching;
    for (const auto& f : everything())
        if (f.label == arg) matching.push_back(f);
    if (matching.empty())
        throw UsageError("'" + arg + "' is neither a result file nor a label in " + results_dir_ +
                         " (labels there: " + list_labels(everything()) + ")");
    return matching;
}

std::vector<std::string> own_result_paths(const std::string& results_dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(results_dir, ec)) return {results_dir};
    std::vector<std::string> paths;
    bool examples = false;
    for (fs::directory_iterator it(results_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        std::error_code unreadable;  // an entry's own: the reader names it
        const bool folder = it->is_directory(unreadable);
        if (folder && p.filename() == kExamplesFolder)
            examples = true;
        else if (folder || p.extension() == ".json")
            paths.push_back(p.string());
    }
    // Unlisted, the folder is the reader's to name with the cause.
    if (ec) return {results_dir};
    if (paths.empty())
        throw UsageError("no result files of your own in " + results_dir +
                         " (contest run writes them there)" +
                         (examples ? "; the committed examples are read when named: " +
                                         (fs::path(results_dir) / kExamplesFolder).string()
                                   : std::string()));
    std::sort(paths.begin(), paths.end());
    return paths;
}

const std::vector<ResultFile>& ResultSides::everything() {
    if (!loaded_) {
        all_ = read_results_or_fail(own_result_paths(results_dir_));
        loaded_ = true;
    }
    return all_;
}

std::vector<ResultFile> ResultSides::resolve_all(const std::vector<std::string>& args) {
    std::vector<ResultFile> files;
    for (const auto& arg : args) {
        auto more = resolve(arg);
        files.insert(files.end(), more.begin(), more.end());
    }
    return files;
}

}  // namespace contest
