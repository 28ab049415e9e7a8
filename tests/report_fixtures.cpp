// What the report tests and the simulations share (report_fixtures.h):
// compiled into both test binaries.
#include "report_fixtures.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

#include "contest/report/formats.h"
#include "contest/report/post_parts.h"
#include "loads/registry.h"

namespace fs = std::filesystem;
using namespace contest;

namespace contest::report_test {

fs::path fixture_dir() {
    return fs::path(CONTEST_TEST_DATA) / "results" / "kernels";
}

std::vector<ResultFile> fixture_files() {
    std::vector<std::string> bad;
    auto files = read_result_paths({fixture_dir()}, bad);
    INFO("unreadable fixture: " << (bad.empty() ? "" : bad.front()));
    REQUIRE(bad.empty());
    REQUIRE(files.size() == 4);
    return files;
}

void expect_snapshot(const std::string& name, const std::string& actual) {
    const fs::path expected_path = fs::path(CONTEST_TEST_DATA) / "snapshots" / name;
    if (const char* update = std::getenv("CONTEST_UPDATE_SNAPSHOTS"); update && *update == '1') {
        fs::create_directories(expected_path.parent_path());
        std::ofstream(expected_path) << actual;
        WARN("snapshot rewritten: " << expected_path.string());
        return;
    }
    std::ifstream in(expected_path);
    INFO("snapshot " << expected_path.string()
                     << " (CONTEST_UPDATE_SNAPSHOTS=1 rewrites it from the current output)");
    REQUIRE(in.good());
    std::stringstream expected;
    expected << in.rdbuf();
    if (expected.str() != actual) {
        const fs::path actual_path = fs::temp_directory_path() / ("contest-snapshot-" + name);
        std::ofstream(actual_path) << actual;
        INFO("actual output written to " << actual_path.string() << " for diff");
        CHECK(expected.str() == actual);
    }
}

void check_mail_lines(const std::string& post) {
    for (const auto& line : split_lines(post)) {
        INFO(line);
        CHECK(display_width(line) <= kPostColumns);
        CHECK(std::none_of(line.begin(), line.end(), [](char c) {
            return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
        }));
    }
}

// A result file made in memory: wall times per load, every run ok.
ResultFile make_result(const std::string& label,
                       const std::map<std::string, std::vector<double>>& walls) {
    ResultFile f;
    f.label = label;
    f.path = label + ".json";
    f.complete = true;
    for (const auto& [load, times] : walls) {
        int index = 0;
        for (double t : times) {
            RunRecord r;
            r.load = load;
            r.index = ++index;
            r.wall_s = t;
            r.cpu_pct = 180;
            // As a run records it: a load that does no work has no unit.
            if (const LoadInfo* info = find_load(load)) r.load_unit = info->unit;
            f.runs.push_back(r);
        }
    }
    return f;
}

// Normal deviates from mt19937's fully specified stream by Box-Muller, so
// the samples are the same with every standard library.
std::vector<double> normal_sample(std::mt19937& gen, double mean, double sd, int n) {
    auto uniform = [&] { return (static_cast<double>(gen()) + 0.5) / 4294967296.0; };
    std::vector<double> out;
    while (static_cast<int>(out.size()) < n) {
        const double r = std::sqrt(-2 * std::log(uniform())), theta = 2 * M_PI * uniform();
        out.push_back(mean + sd * r * std::cos(theta));
        if (static_cast<int>(out.size()) < n) out.push_back(mean + sd * r * std::sin(theta));
    }
    return out;
}

}  // namespace contest::report_test
