// Simulations of the statistics: thousands of comparisons of runs drawn
// with a known spread, checking the rates the docs promise (false marks
// under a correction). They run in their own binary, optimised and without
// the sanitizers (the same code runs under them in contest_tests), so that
// enough draws for a tight check cost seconds, not minutes.
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/report/report.h"
#include "report_fixtures.h"

using namespace contest;
using namespace contest::report_test;

namespace {

ReportOptions quiet() {
    ReportOptions o;
    o.print_warnings = false;
    return o;
}

// A result file whose runs were taken in rounds: run i of every load in round i.
ResultFile in_rounds(ResultFile f) {
    f.config["order"] = "rounds";
    return f;
}

bool any_marked(const ReportModel& model) {
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells)
            if (cell.versus && (cell.versus->significant || cell.versus->ratio_significant))
                return true;
    return false;
}

}  // namespace

TEST_CASE("10 loads x 2 labels, no true difference: Holm keeps false marks rare",
          "[report][stats]") {
    const std::vector<std::string> loads = {"no_load",  "cacherun",  "process_load", "cpu_load",
                                            "io_load",  "io_other",  "read_load",    "list_load",
                                            "mem_load", "ctar_load", "xtar_load"};
    std::mt19937 gen(20261130);
    const int trials = 2000;
    int marked_holm = 0, marked_none = 0;
    for (int trial = 0; trial < trials; ++trial) {
        std::vector<ResultFile> files;
        for (const char* label : {"base", "new"}) {
            std::map<std::string, std::vector<double>> walls;
            for (std::size_t k = 0; k < loads.size(); ++k) {
                const double mean = 100 * (1 + 0.1 * static_cast<double>(k));  // Ratio 1.0 .. 2.0
                walls[loads[k]] = normal_sample(gen, mean, mean * 0.01, 5);
            }
            files.push_back(in_rounds(make_result(label, walls)));
        }
        ReportOptions options = quiet();
        options.baseline = "base";
        options.min_effect_pct = 0;  // the correction alone
        marked_holm += any_marked(build_report_model(files, options));
        options.correction = stats::Correction::none;
        marked_none += any_marked(build_report_model(files, options));
    }
    const double rate_holm = double(marked_holm) / trials, rate_none = double(marked_none) / trials;
    WARN("any load marked in " << trials << " comparisons without a true difference: Holm "
                               << rate_holm * 100 << "%, uncorrected " << rate_none * 100 << "%");
    CHECK(rate_holm <= 0.06);
    CHECK(rate_none > 0.2);  // the contrast: ten loads, two tests each, no correction
}
