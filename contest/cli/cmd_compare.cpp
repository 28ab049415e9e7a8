// `contest compare BASE NEW`: two kernels side by side, load by load, with
// the significance of every difference and a plain verdict.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/report/formats.h"
#include "contest/report/plot_svg.h"
#include "contest/report/report.h"
#include "contest/report/report_model.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

std::string list_labels(const std::vector<ResultFile>& files) {
    std::vector<std::string> seen;
    for (const auto& f : files)
        if (std::find(seen.begin(), seen.end(), f.label) == seen.end()) seen.push_back(f.label);
    return join(seen, ", ");
}

// One side of the comparison: a result file or folder when the argument
// names one, else a label looked up under --results.
class SideResolver {
  public:
    explicit SideResolver(std::string results_dir) : results_dir_(std::move(results_dir)) {}

    std::vector<ResultFile> resolve(const std::string& arg) {
        std::error_code ec;
        if (std::filesystem::exists(arg, ec)) {
            auto files = read_results_or_fail({arg});
            const std::string labels = list_labels(files);
            if (labels != files.front().label)
                throw UsageError(arg + " holds runs of several labels (" + labels +
                                 "): name one label or one file");
            return files;
        }
        std::vector<ResultFile> matching;
        for (const auto& f : everything())
            if (f.label == arg) matching.push_back(f);
        if (matching.empty())
            throw UsageError("'" + arg + "' is neither a result file nor a label in " +
                             results_dir_ + " (labels there: " + list_labels(everything()) + ")");
        return matching;
    }

  private:
    const std::vector<ResultFile>& everything() {
        if (!loaded_) {
            all_ = read_results_or_fail({results_dir_});
            loaded_ = true;
        }
        return all_;
    }
    std::string results_dir_;
    std::vector<ResultFile> all_;
    bool loaded_ = false;
};

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

std::string mean_and_ci(const stats::Summary& s) {
    const int decimals = s.mean >= 100 ? 1 : 2;
    std::string out = fixed(s.mean, decimals);
    if (std::isfinite(s.ci95_half)) out += " ± " + fixed(s.ci95_half, decimals);
    return out + " s";
}

}  // namespace

std::string format_compare(const ReportModel& model) {
    const std::string& base = model.labels.at(0).label;
    const std::string& fresh = model.labels.at(1).label;
    std::string out = "base: " + base + "\nnew:  " + fresh +
                      "\nTime: mean wall seconds ± half-width of the 95% confidence interval; "
                      "p: Welch's t-test\n\n";

    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> slower, faster, same, unjudged;
    double log_ratio_sum = 0;
    int ratio_count = 0;
    for (const auto& block : model.blocks) {
        const Cell* b = model.find_cell(block.load, base);
        const Cell* n = model.find_cell(block.load, fresh);
        if (!b || !n || b->time.n == 0 || n->time.n == 0) {
            const char* who = (b && b->time.n)   ? "only base has ok runs"
                              : (n && n->time.n) ? "only new has ok runs"
                                                 : "no ok runs";
            rows.push_back({block.load, who});
            continue;
        }
        const VersusBaseline& v = *n->versus;
        log_ratio_sum += std::log(v.time_ratio);
        ++ratio_count;
        std::string p = "p=-", verdict;
        if (!v.judged) {
            verdict = "not judged (" + std::to_string(b->time.n) + " vs " +
                      std::to_string(n->time.n) + " runs)";
            unjudged.push_back(block.load);
        } else {
            const std::string formatted = format_p(v.welch->p);
            p = formatted[0] == '<' ? "p" + formatted : "p=" + formatted;
            verdict = v.significant ? "significant" : "not significant";
            if (!v.significant)
                same.push_back(block.load);
            else
                (v.change_pct > 0 ? slower : faster)
                    .push_back(block.load + " (" + signed_percent(v.change_pct) + ")");
        }
        std::vector<std::string> row = {block.load,
                                        mean_and_ci(b->time),
                                        "vs",
                                        mean_and_ci(n->time),
                                        signed_percent(v.change_pct),
                                        p,
                                        verdict};
        if (v.mann_whitney) row.push_back("(Mann-Whitney p=" + format_p(v.mann_whitney->p) + ")");
        rows.push_back(std::move(row));
    }
    for (const auto& line :
         align_columns(rows, {false, true, false, true, true, false, false, false}))
        out += line + "\n";
    out += "\n";

    if (ratio_count) {
        const double geo = std::exp(log_ratio_sum / ratio_count);
        out += "geometric mean of the time ratios new/base over " + std::to_string(ratio_count) +
               (ratio_count == 1 ? " load: " : " loads: ") + fixed(geo, 3) + " (" +
               signed_percent((geo - 1) * 100) + ")\n";
    }

    char alpha[32];
    std::snprintf(alpha, sizeof alpha, "%g", model.alpha);
    std::string verdict;
    if (slower.empty() && faster.empty() && same.empty()) {
        verdict = "too few runs to judge anything: significance needs " +
                  std::to_string(kMinRunsForSignificance) +
                  " or more successful runs of each kernel under a load (--runs)";
    } else if (slower.empty() && faster.empty()) {
        verdict = "no difference beyond noise under any load (alpha " + std::string(alpha) +
                  "): as far as these runs can tell, the two kernels perform the same";
    } else {
        std::vector<std::string> parts;
        if (!slower.empty()) parts.push_back("new is slower under " + join(slower, ", "));
        if (!faster.empty()) parts.push_back("new is faster under " + join(faster, ", "));
        if (!same.empty()) parts.push_back("no difference beyond noise under " + join(same, ", "));
        verdict = join(parts, "; ");
        verdict += " (alpha " + std::string(alpha) + ")";
    }
    if (!unjudged.empty() && !(slower.empty() && faster.empty() && same.empty()))
        verdict += "; too few runs to judge " + join(unjudged, ", ");
    out += "verdict: " + verdict + "\n";
    return out;
}

int cmd_compare(int argc, char** argv) {
    CommandLine cl;
    cl.name = "compare";
    cl.usage = "contest compare [options] BASE NEW";
    cl.summary =
        "Compares two kernels load by load: mean time with its 95% CI, the change, Welch's "
        "p-value and a verdict. BASE and NEW are labels (looked up under --results) or result "
        "files or folders.";
    cl.accepts_config = true;
    std::vector<std::string> sides;
    std::string results_dir = "results", plot;
    ReportOptions options;
    cl.options.add_options()("results",
                             po::value(&results_dir)->value_name("D")->default_value("results"),
                             "where labels are looked up")(
        "alpha",
        bounded(&options.alpha, kMinAlpha, kMaxAlpha)->value_name("A")->default_value(0.05, "0.05"),
        "significance level")("plot", po::value(&plot)->value_name("FILE.svg"),
                              "also draw Ratio per load for both, with 95% CI error bars, as SVG")(
        "side", po::value(&sides)->value_name("BASE NEW"), "the two labels or files");
    cl.positional.add("side", 2);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    if (sides.size() != 2) throw UsageError("contest compare: give BASE and NEW (labels or files)");

    SideResolver resolver(results_dir);
    auto base = resolver.resolve(sides[0]);
    auto fresh = resolver.resolve(sides[1]);
    tell_apart(base, fresh);
    std::vector<ResultFile> files = base;
    files.insert(files.end(), fresh.begin(), fresh.end());
    options.baseline = base.front().label;

    const ReportModel model = build_report_model(files, options);
    for (const auto& w : model.warnings) std::cerr << "contest: warning: " << w << "\n";
    std::cout << format_compare(model) << std::flush;
    if (!plot.empty()) {
        write_file_atomically(plot, plot_svg(model));
        std::cerr << "contest: plot written to " << plot << "\n";
    }
    return kExitOk;
}

}  // namespace contest
