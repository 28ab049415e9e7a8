#pragma once
// What the report tests share, defined in test_report.cpp and
// test_latency_report.cpp (one test binary): the committed result files, the
// snapshot check and result files made in memory.
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "contest/result/result_file.h"
#include "contest/sys/text.h"

namespace contest::report_test {

// tests/data/results/kernels and its four files.
std::filesystem::path fixture_dir();
std::vector<ResultFile> fixture_files();
// The two trimmed --latency runs of tests/data/latency-results.
std::vector<ResultFile> latency_fixture();
// `actual` against tests/data/snapshots/NAME (CONTEST_UPDATE_SNAPSHOTS=1 rewrites it).
void expect_snapshot(const std::string& name, const std::string& actual);
// Every line of a mail within kPostColumns, and nothing a terminal or a
// mail client would take as a control.
void check_mail_lines(const std::string& post);
// A result file made in memory: wall times per load, every run ok.
ResultFile make_result(const std::string& label,
                       const std::map<std::string, std::vector<double>>& walls);
// Normal deviates from mt19937's fully specified stream.
std::vector<double> normal_sample(std::mt19937& gen, double mean, double sd, int n);

}  // namespace contest::report_test
