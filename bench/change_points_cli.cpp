// contest_change_points: contest's change-point method (find_change_points,
// its defaults) or Perfherder's rule (perfherder_alerts) on a series read
// from a file, for bench/tcpd_score.py, which grades them on the Turing
// Change Point Dataset's human annotations (docs/history.md, "Graded on
// human annotations"). Built with contest, never installed.
//
// The series: one point a line, its runs' figures separated by blanks; a
// line without a figure is a point without runs (a missing value), which
// the method skips as `contest history changes` skips a kernel without
// runs. Printed: one change a line, the index (0-based, the line) of the
// first point after it; with the method, also the change and its p.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"
#include "contest/analysis/perfherder_alerts.h"

namespace {

constexpr const char* kUsage =
    "usage: contest_change_points [--perfherder] FILE\n"
    "  FILE: one point a line, its runs' figures separated by blanks ('-': stdin);\n"
    "  an empty line is a point without runs. Prints the index of the first point\n"
    "  after each change find_change_points finds with its defaults (and the\n"
    "  change and p), or with --perfherder each alert of perfherder_alerts.\n";

struct BadInput {
    std::string what;
};

// Every line a point, in order: lines[i] holds the figures of line i.
std::vector<std::vector<double>> read_series(std::istream& in, const std::string& name) {
    std::vector<std::vector<double>> lines;
    std::string line;
    while (std::getline(in, line)) {
        std::vector<double> runs;
        std::istringstream words(line);
        std::string word;
        while (words >> word) {
            double v = 0;
            const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
            if (ec != std::errc() || end != word.data() + word.size() || !std::isfinite(v))
                throw BadInput{name + " line " + std::to_string(lines.size() + 1) + ": '" + word +
                               "' is not a finite number"};
            runs.push_back(v);
        }
        lines.push_back(std::move(runs));
    }
    return lines;
}

}  // namespace

int main(int argc, char** argv) {
    bool perfherder = false;
    std::string file;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (arg == "--perfherder") {
            perfherder = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            std::fprintf(stderr, "contest_change_points: unknown option %s\n%s", arg.c_str(),
                         kUsage);
            return 2;
        } else if (!file.empty()) {
            std::fprintf(stderr, "contest_change_points: one FILE, not %s too\n", arg.c_str());
            return 2;
        } else {
            file = arg;
        }
    }
    if (file.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    std::vector<std::vector<double>> lines;
    try {
        if (file == "-") {
            lines = read_series(std::cin, "stdin");
        } else {
            std::ifstream in(file);
            if (!in) {
                std::fprintf(stderr, "contest_change_points: cannot read %s\n", file.c_str());
                return 2;
            }
            lines = read_series(in, file);
        }
    } catch (const BadInput& e) {
        std::fprintf(stderr, "contest_change_points: %s\n", e.what.c_str());
        return 2;
    }
    // The points with runs, and the line each came from.
    std::vector<std::vector<double>> points;
    std::vector<std::size_t> line_of;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].empty()) continue;
        points.push_back(lines[i]);
        line_of.push_back(i);
    }
    if (perfherder) {
        for (std::size_t at : contest::perfherder_alerts(points)) std::printf("%zu\n", line_of[at]);
    } else {
        for (const contest::ChangePoint& c : contest::find_change_points(points))
            std::printf("%zu %.6g %.6g\n", line_of[c.index], c.change, c.p);
    }
    return 0;
}
