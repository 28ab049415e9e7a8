#include "contest/report/report.h"

#include <filesystem>

#include "contest/analysis/build_report_model.h"
#include "contest/report/formats.h"
#include "contest/report/outputs.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"

namespace contest {

std::vector<ResultFile> read_results_or_fail(const std::vector<std::string>& paths) {
    std::vector<std::filesystem::path> fs_paths(paths.begin(), paths.end());
    std::vector<std::string> bad;
    auto files = read_result_paths(fs_paths, bad);
    if (files.empty()) {
        if (bad.size() == 1) throw UsageError(bad.front());
        for (const auto& b : bad) say(b);
        const std::string where = join(paths, ", ");
        throw UsageError(bad.empty() ? "no result files (*.json) in " + where
                                     : "no readable result file in " + where);
    }
    for (const auto& b : bad) say("skipping " + b);
    return files;
}

std::string render_report(const std::vector<ResultFile>& files, const ReportOptions& options) {
    // Check the format before the work, so a typo fails fast and plainly.
    const Output& exporter = find_output(options.format, OutputUse::report);
    if (!(options.alpha > 0 && options.alpha < 1))
        throw UsageError("--alpha must be between 0 and 1");
    const ReportModel model = build_report_model(files, options);
    if (options.print_warnings)
        for (const auto& w : model.warnings) warn(w);
    return with_emulated_banner(model, options.format, exporter.report(model, options));
}

}  // namespace contest
