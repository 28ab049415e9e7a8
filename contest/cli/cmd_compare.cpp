// `contest compare BASE NEW`: two kernels side by side, load by load, with
// the significance of every difference and a plain verdict.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/over_hosts.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/judging_options.h"
#include "contest/cli/result_sides.h"
#include "contest/report/format_over_hosts.h"
#include "contest/report/formats.h"
#include "contest/report/latency_plot.h"
#include "contest/report/outputs.h"
#include "contest/report/plot_svg.h"
#include "contest/report/report_options.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

// A side of the comparison: the files of one label.
std::vector<ResultFile> one_label(ResultSides& sides, const std::string& arg) {
    auto files = sides.resolve(arg);
    if (const std::string labels = list_labels(files); labels != files.front().label)
        throw UsageError(arg + " holds runs of several labels (" + labels +
                         "): name one label or one file");
    return files;
}

// Two files of one label (a kernel against itself, a reproducibility check):
// the rows need names that tell them apart.
void tell_apart(std::vector<ResultFile>& base, std::vector<ResultFile>& fresh) {
    if (base.front().label != fresh.front().label) return;
    if (base.size() == fresh.size() &&
        std::equal(base.begin(), base.end(), fresh.begin(),
                   [](const ResultFile& a, const ResultFile& b) { return a.path == b.path; }))
        throw UsageError("BASE and NEW are the same result files");
    for (auto* side : {&base, &fresh}) {
        const std::string tag = side == &base ? " (base: " : " (new: ";
        const std::string name =
            side->front().path.filename().string() + (side->size() > 1 ? " and more" : "");
        for (auto& f : *side) f.label += tag + name + ")";
    }
}

}  // namespace

int cmd_compare(int argc, char** argv) {
    CommandLine cl;
    cl.name = "compare";
    cl.usage = "contest compare [options] BASE NEW";
    cl.summary =
        "Compares two kernels load by load: mean time with its 95% CI, the change, its "
        "adjusted p-value, Ratio against no_load (paired by round) and a verdict. BASE and NEW are "
        "labels (looked up under --results) or result "
        "files or folders.";
    cl.accepts_config = true;
    std::vector<std::string> sides;
    std::string results_dir = "results", plot, format = "text";
    bool over_hosts = false;
    JudgingNames correction;
    ReportOptions options;
    const std::string formats = output_names(OutputUse::compare);
    using enum OptionScope;
    // clang-format off
    add_options(cl, {
        {"results", host, po::value(&results_dir)->value_name("D")->default_value("results"),
         "where labels are looked up (not in its examples/ folder, the committed examples: "
         "--results results/examples for those)"},
        {"format,f", host, checked(&format, check_compare_format)->value_name("F")->default_value("text"), formats},
        {"plot", host, po::value(&plot)->value_name("FILE.svg"), "also draw Ratio per load for both, with 95% CI error bars, as SVG"},
        {"side", host, po::value(&sides)->value_name("BASE NEW"), "the two labels or files"},
        {"over-hosts", host, po::bool_switch(&over_hosts),
         "a fleet's runs: NEW against BASE on every host that ran both (each judged on its own), "
         "then each load's effect combined over the hosts (random effects: the spread between "
         "hosts, how many agree); --format text, markdown, json or html"},
    });
    // clang-format on
    add_options(cl, judging_option_rows(options, correction));
    cl.positional.add("side", 2);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    if (sides.size() != 2) throw UsageError("contest compare: give BASE and NEW (labels or files)");
    check_judging_options(options, correction);
    const Output& exporter = find_output(format, OutputUse::compare);

    ResultSides resolver(results_dir);
    auto base = one_label(resolver, sides[0]);
    auto fresh = one_label(resolver, sides[1]);
    if (over_hosts) {
        if (format != "text" && format != "markdown" && format != "json" && format != "html")
            throw UsageError("contest compare --over-hosts: --format text, markdown, json or html");
        const OverHosts over = compare_over_hosts(base, fresh, options);
        std::cout << format_over_hosts(over, format) << std::flush;
        return kExitOk;
    }
    tell_apart(base, fresh);
    std::vector<ResultFile> files = base;
    files.insert(files.end(), fresh.begin(), fresh.end());
    options.baseline = base.front().label;

    const ReportModel model = build_report_model(files, options);
    for (const auto& w : model.warnings) warn(w);
    std::cout << with_emulated_banner(model, format, exporter.compare(model)) << std::flush;
    if (!plot.empty()) {
        write_file_atomically(plot, plot_svg(model));
        say("plot written to " + plot);
        if (const std::string svg = latency_plot_svg(model); !svg.empty()) {
            std::filesystem::path to = plot;
            to.replace_filename(to.stem().string() + "-latency.svg");
            write_file_atomically(to, svg);
            say("latency plot written to " + to.string());
        }
    }
    return kExitOk;
}

}  // namespace contest
