// `contest report [PATH...]`: tables from result files and folders.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/report_options.h"
#include "contest/report/latency_plot.h"
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
    std::string baseline, plot, correction;
    cl.options.add_options()("format,f",
                             po::value(&options.format)->value_name("F")->default_value("text"),
                             "text, markdown, csv or json")(
        "baseline,b", po::value(&baseline)->value_name("L"),
        "the label the others are compared with (default: the label that ran first)")(
        "stats,s", po::bool_switch(&options.stats),
        "text: add the 95% CIs, the change against the baseline, adjusted p-values and every "
        "test")("by-host", po::bool_switch(&options.by_host),
                "rows per label and host (LABEL@host) instead of pooling a label's hosts")(
        "plot", po::value(&plot)->value_name("FILE.svg"),
        "also draw Ratio per load and label, with 95% CI error bars, as SVG (with latency runs, "
        "their distribution too, as FILE-latency.svg; with --latency, only that, as FILE.svg)")(
        "latency", po::bool_switch(&options.latency_only),
        "only the latency blocks (runs made with contest run --latency)")(
        "path", po::value(&paths)->value_name("PATH"), "result file or folder (repeatable)");
    add_judging_options(cl.options, options, correction);
    cl.positional.add("path", -1);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    if (!baseline.empty()) options.baseline = baseline;
    check_judging_options(options, correction);
    if (paths.empty()) paths.push_back("results");

    const auto files = read_results_or_fail(paths);
    std::cout << render_report(files, options) << std::flush;
    if (!plot.empty()) {
        ReportOptions quiet = options;
        quiet.print_warnings = false;  // render_report said them already
        const ReportModel model = build_report_model(files, quiet);
        if (!options.latency_only) {
            write_file_atomically(plot, plot_svg(model));
            std::cerr << "contest: plot written to " << plot << "\n";
        }
        if (const std::string svg = latency_plot_svg(model); !svg.empty()) {
            std::filesystem::path to = plot;
            if (!options.latency_only) to.replace_filename(to.stem().string() + "-latency.svg");
            write_file_atomically(to, svg);
            std::cerr << "contest: latency plot written to " << to.string() << "\n";
        } else if (options.latency_only) {
            throw UsageError("--plot --latency: no run in these files was made with --latency");
        }
    }
    return kExitOk;
}

}  // namespace contest
