// `contest report [PATH...]`: tables from result files and folders.
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/build_report_model.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/judging_options.h"
#include "contest/cli/result_sides.h"
#include "contest/report/latency_plot.h"
#include "contest/report/outputs.h"
#include "contest/report/plot_svg.h"
#include "contest/report/report.h"
#include "contest/report/timeline_svg.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

std::string run_title(const ResultFile& file, const RunRecord& run) {
    return file.label + ": " + run.load + " run " + std::to_string(run.index) + " (" +
           fixed(run.wall_s, 1) + " s)";
}

// --run N: far beyond any result file's runs.
constexpr int kMaxRunNumber = 1'000'000;

// A UsageError's text, built by appending: GCC 12 -O3 warns on "literal" +
// a temporary string (-Wstringop-overflow).
[[noreturn]] void refuse(std::initializer_list<std::string> parts) {
    std::string text;
    for (const auto& p : parts) text += p;
    throw UsageError(text);
}

// --timeline FILE.svg: the file's run N (file order), or with --load the
// run numbered N (default: the first recorded) of each load side by side.
std::string draw_timeline(const std::vector<ResultFile>& files,
                          const std::vector<std::string>& loads, std::optional<int> run_number) {
    if (files.size() != 1)
        refuse({"--timeline draws the runs of one result file; ", std::to_string(files.size()),
                " were given"});
    const ResultFile& file = files.front();
    if (loads.empty()) {
        const int n = run_number.value_or(1);
        if (n < 1 || static_cast<std::size_t>(n) > file.runs.size())
            refuse({"--run ", std::to_string(n), ": ", file.path.string(), " has ",
                    std::to_string(file.runs.size()), " runs"});
        const RunRecord& run = file.runs[static_cast<std::size_t>(n - 1)];
        if (run.timeline.is_null())
            refuse(
                {"--run ", std::to_string(n), " has no timeline (recorded with --timeline-hz 0?)"});
        return timeline_svg(run.timeline, run_title(file, run));
    }
    std::vector<std::pair<nlohmann::json, std::string>> columns;
    for (const auto& load : loads) {
        const RunRecord* found = nullptr;
        for (const auto& run : file.runs)
            if (run.load == load && !run.timeline.is_null() &&
                (!run_number || run.index == *run_number)) {
                found = &run;
                break;
            }
        if (!found)
            refuse({"--load ", load, ": no run",
                    run_number ? " " + std::to_string(*run_number) : std::string(),
                    " with a timeline in ", file.path.string()});
        columns.emplace_back(found->timeline, run_title(file, *found));
    }
    return timeline_svg_side_by_side(columns, file.label + ": timelines by load");
}

// What the command line asked `contest report` for.
struct ReportRequest {
    ReportOptions options;
    std::vector<std::string> paths;
    std::string plot;
    std::string timeline;
    std::vector<std::string> timeline_loads;  // as given: "a,b" or one a --load
    std::optional<int> timeline_run;
};

// The request, or nothing when --help was answered.
std::optional<ReportRequest> parse_report_command(int argc, char** argv) {
    CommandLine cl;
    cl.name = "report";
    cl.usage = "contest report [options] [PATH...]";
    cl.summary =
        "Prints the contest table from result files and folders (default: what you ran, results/ "
        "without the committed examples in results/examples, read when named). Runs of one "
        "label pool together across files; rows that differ from the baseline beyond noise are "
        "marked.";
    cl.accepts_config = true;
    ReportRequest request;
    ReportOptions& options = request.options;
    std::string baseline;
    JudgingNames correction;
    int timeline_run = 0;
    const std::string formats = output_names(OutputUse::report);
    using enum OptionScope;
    // clang-format off
    add_options(cl, {
        {"format,f", host, checked(&options.format, check_table_format)->value_name("F")->default_value("text"), formats},
        {"baseline,b", host, po::value(&baseline)->value_name("L"),
         "the label the others are compared with (default: the label that ran first)"},
        {"stats,s", host, po::bool_switch(&options.stats),
         "text: add the 95% CIs, the change against the baseline, adjusted p-values, every "
         "test and what else changed against the baseline"},
        {"by-host", host, po::bool_switch(&options.by_host),
         "rows per label and host (LABEL@host) instead of pooling a label's hosts"},
        {"plot", host, po::value(&request.plot)->value_name("FILE.svg"),
         "also draw Ratio per load and label, with 95% CI error bars, as SVG (with latency runs, "
         "their distribution too, as FILE-latency.svg; with --latency, only that, as FILE.svg)"},
        {"latency", host, po::bool_switch(&options.latency_only),
         "only the latency blocks (runs made with contest run --latency)"},
        {"perf", host, po::bool_switch(&options.perf),
         "add the perf counters per load and label (runs with contest run --perf)"},
        {"psi", host, po::bool_switch(&options.psi),
         "add pressure stalls and vmstat deltas per load and label (from the runs' timelines)"},
        {"timeline", host, po::value(&request.timeline)->value_name("FILE.svg"),
         "draw one result file's run over time as SVG (--run N, or --load L side by side)"},
        {"run", host, bounded(&timeline_run, 1, kMaxRunNumber)->value_name("N"),
         "--timeline: the file's Nth run; with --load, each load's run N"},
        {"load", host, po::value(&request.timeline_loads)->value_name("L"),
         "--timeline: a load whose run goes in a column of its own (repeatable)"},
        {"path", host, po::value(&request.paths)->value_name("PATH"), "result file or folder (repeatable)"},
    });
    // clang-format on
    add_options(cl, judging_option_rows(options, correction));
    cl.positional.add("path", -1);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return std::nullopt;
    if (!baseline.empty()) options.baseline = baseline;
    check_judging_options(options, correction);
    // What a person ran: the results folder without its committed examples.
    if (request.paths.empty()) request.paths = own_result_paths("results");
    if (request.timeline.empty() && (vm.count("run") || vm.count("load")))
        throw UsageError("--run and --load go with --timeline FILE.svg");
    if (vm.count("run")) request.timeline_run = timeline_run;
    return request;
}

// --plot FILE.svg: Ratio per load and label, and the latency distributions
// beside it (or, with --latency, only those, in FILE.svg).
void write_plots(const std::vector<ResultFile>& files, const ReportOptions& options,
                 const std::string& plot) {
    ReportOptions quiet = options;
    quiet.print_warnings = false;  // render_report said them already
    const ReportModel model = build_report_model(files, quiet);
    if (!options.latency_only) {
        write_file_atomically(plot, plot_svg(model));
        say("plot written to " + plot);
    }
    if (const std::string svg = latency_plot_svg(model); !svg.empty()) {
        std::filesystem::path to = plot;
        if (!options.latency_only) to.replace_filename(to.stem().string() + "-latency.svg");
        write_file_atomically(to, svg);
        say("latency plot written to " + to.string());
    } else if (options.latency_only) {
        throw UsageError("--plot --latency: no run in these files was made with --latency");
    }
}

void write_timeline(const std::vector<ResultFile>& files, const ReportRequest& request) {
    // "a,b" as well as --load a --load b
    write_file_atomically(
        request.timeline,
        draw_timeline(files, split_names(request.timeline_loads), request.timeline_run));
    say("timeline written to " + request.timeline);
}

}  // namespace

int cmd_report(int argc, char** argv) {
    const std::optional<ReportRequest> request = parse_report_command(argc, argv);
    if (!request) return kExitOk;
    const auto files = read_results_or_fail(request->paths);
    std::cout << render_report(files, request->options) << std::flush;
    if (!request->plot.empty()) write_plots(files, request->options, request->plot);
    if (!request->timeline.empty()) write_timeline(files, *request);
    return kExitOk;
}

}  // namespace contest
