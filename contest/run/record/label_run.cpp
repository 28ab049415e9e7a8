#include "contest/run/record/label_run.h"

#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {

void check_label_name(const std::string& label, const std::string& what, const std::string& from) {
    if (auto why = label_problem(label)) throw UsageError(what + " " + *why + from);
}

std::vector<std::filesystem::path> label_folders(const std::vector<LabelRun>& labels) {
    std::vector<std::filesystem::path> folders;
    for (const auto& label : labels) folders.push_back(label.folder);
    return folders;
}

std::vector<ResultFile> label_results(const std::vector<LabelRun>& labels) {
    std::vector<ResultFile> results;
    for (const auto& label : labels) results.push_back(label.result);
    return results;
}

}  // namespace contest
