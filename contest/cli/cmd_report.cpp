// `contest report [PATH...]`: tables from result files and folders.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/report/plot_svg.h"
#include "contest/report/report.h"
#include "contest/report/report_model.h"
#include "contest/sys/errors.h"

namespace contest {

int cmd_report(int argc, char** argv) {
    CommandLine cl;
    cl.name = "report";
    cl.usage = "contest report [options] [PATH...]";
    cl.summary =
        "Prints the contest table from result files and folders (default: results/). Runs of one "
        "label pool together across files; rows that differ from the baseline beyond noise are "
        "marked.";
    cl.accepts_config = true;
    ReportOptions options;
    std::vector<std::string> paths;
    std::string baseline, plot;
    cl.options.add_options()("format,f",
                             po::value(&options.format)->value_name("F")->default_value("text"),
                             "text, markdown, csv or json")(
        "baseline,b", po::value(&baseline)->value_name("L"),
        "the label the others are compared with (default: the first label read)")(
        "stats,s", po::bool_switch(&options.stats),
        "text: add the 95% CI of Time, the change against the baseline and Welch's p")(
        "alpha",
        bounded(&options.alpha, kMinAlpha, kMaxAlpha)->value_name("A")->default_value(0.05, "0.05"),
        "significance level of the marks")(
        "plot", po::value(&plot)->value_name("FILE.svg"),
        "also draw Ratio per load and label, with 95% CI error bars, as SVG")(
        "path", po::value(&paths)->value_name("PATH"), "result file or folder (repeatable)");
    cl.positional.add("path", -1);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    if (!baseline.empty()) options.baseline = baseline;
    if (paths.empty()) paths.push_back("results");

    const auto files = read_results_or_fail(paths);
    std::cout << render_report(files, options) << std::flush;
    if (!plot.empty()) {
        ReportOptions quiet = options;
        quiet.print_warnings = false;  // render_report said them already
        write_file_atomically(plot, plot_svg(build_report_model(files, quiet)));
        std::cerr << "contest: plot written to " << plot << "\n";
    }
    return kExitOk;
}

}  // namespace contest
