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

const std::vector<ResultFile>& ResultSides::everything() {
    if (!loaded_) {
        all_ = read_results_or_fail({results_dir_});
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
