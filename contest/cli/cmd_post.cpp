// `contest post LABEL|PATH...`: a plain-text mail body for a kernel list.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/over_hosts.h"
#include "contest/bisect/bisection.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/judging_options.h"
#include "contest/cli/result_sides.h"
#include "contest/report/format_over_hosts.h"
#include "contest/report/format_post.h"
#include "contest/report/outputs.h"
#include "contest/report/post_parts.h"
#include "contest/report/report_options.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"

namespace contest {
namespace {

// A bisection's folder as a mail: its answer; the machine and the ends'
// kernels as the ends' first batch recorded them; and the command that asked
// it (tree, ends, measure, rule and each batch's run words). Every text of
// the state and the files escaped (post_lines), the Subject's too: a commit's
// subject is the tree's, and a line break in it would start a header.
std::string bisection_post(const std::filesystem::path& folder) {
    const bisect::BisectState state = bisect::read_bisect_state(folder);
    const std::string answer = !state.finished && !state.failure.empty() ? "ended without an answer"
                               : !state.finished                         ? "under way"
                               : state.first_bad.empty()
                                   ? "no single first bad commit"
                                   : state.first_bad.substr(0, 12) + " " + state.first_bad_subject;
    std::string body = bisect::bisection_text(state);
    // The ends' files: ends/good and ends/bad, or each --boot part's.
    std::vector<std::string> unread;
    std::vector<ResultFile> ends;
    for (auto& f : read_result_paths({folder / "ends"}, unread))
        if ((f.label == "good" || f.label == "bad") &&
            std::none_of(ends.begin(), ends.end(),
                         [&](const auto& e) { return e.label == f.label; }))
            ends.push_back(std::move(f));
    if (!ends.empty())
        body += "\nThe machine and the ends (their first batch):\n" +
                post_facts(build_report_model(ends, ModelOptions{}));
    std::vector<std::string> words;
    for (const auto& w : bisect::bisection_command(state)) words.push_back(shell_quoted(w));
    body += "\nHow it was run:\n" + post_command_lines(words);
    return "Subject: [contest] bisect " + printable(state.measure + ": " + answer) + "\n\n" +
           post_lines(body, false) + post_signature();
}

}  // namespace

int cmd_post(int argc, char** argv) {
    CommandLine cl;
    cl.name = "post";
    cl.usage = "contest post [options] LABEL|PATH...";
    cl.summary =
        "Prints a plain-text mail body for a kernel list: a subject line, the machine and kernel "
        "facts, the contest table, the latency block, each label judged against the first (with "
        "adjusted p-values and what else changed) and the command line that made the runs; no "
        "line is wider than 76 columns; --style lkp and normalized give the same verdicts in the "
        "shapes of the 0-day robot's mails and of scheduler series on LKML. Each argument is a "
        "label (looked up under --results) or "
        "a result file or folder; a bisection's folder (contest bisect --results) posts its "
        "answer.";
    cl.accepts_config = true;
    std::vector<std::string> sides;
    std::string results_dir = "results", baseline, style = "contest";
    const std::string style_help = "the mail's shape: " + outputs_help(OutputUse::post);
    bool over_hosts = false;
    JudgingNames correction;
    ReportOptions options;
    using enum OptionScope;
    // clang-format off
    add_options(cl, {
        {"results", host, po::value(&results_dir)->value_name("D")->default_value("results"),
         "where labels are looked up (not in its examples/ folder, the committed examples: "
         "--results results/examples for those)"},
        {"baseline,b", host, po::value(&baseline)->value_name("L"),
         "the label the others are judged against (default: the first argument's)"},
        {"style", host, checked(&style, [](const std::string& s) { find_output(s, OutputUse::post); })->value_name("STYLE")->default_value("contest"),
         style_help},
        {"side", host, po::value(&sides)->value_name("LABEL|PATH"), "a label, result file or folder"},
        {"over-hosts", host, po::bool_switch(&over_hosts),
         "a fleet's runs of two labels (BASE NEW): each host's verdict and the one over the hosts, "
         "as contest compare --over-hosts gives them"},
    });
    // clang-format on
    add_options(cl, judging_option_rows(options, correction));
    cl.positional.add("side", -1);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    if (sides.empty()) throw UsageError("contest post: give the labels or result files to post");
    check_judging_options(options, correction);

    // A bisection's folder (contest bisect --results): its answer as a mail.
    if (sides.size() == 1 && bisect::has_bisect_state(sides.front())) {
        std::cout << bisection_post(sides.front()) << std::flush;
        return kExitOk;
    }
    if (over_hosts) {
        if (sides.size() != 2)
            throw UsageError("contest post --over-hosts: give BASE and NEW (labels or folders)");
        ResultSides resolver(results_dir);
        const OverHosts over =
            compare_over_hosts(resolver.resolve(sides[0]), resolver.resolve(sides[1]), options);
        std::cout << "Subject: [contest] " << over.fresh << " against " << over.base << " over "
                  << over.hosts.size() << " hosts\n\n"
                  << post_lines(format_over_hosts(over, "text"), false) << post_signature()
                  << std::flush;
        return kExitOk;
    }
    const std::vector<ResultFile> files = ResultSides(results_dir).resolve_all(sides);
    options.baseline = baseline.empty() ? files.front().label : baseline;
    std::cout << find_output(style, OutputUse::post).post(files, options) << std::flush;
    return kExitOk;
}

}  // namespace contest
