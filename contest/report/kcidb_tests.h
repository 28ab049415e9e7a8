#pragma once
// A label's measures as KCIDB tests (kcidb_export.h): each figure of the
// report model a test's path, number, unit, comment and misc, and a test of
// record's judgement against the baseline made its status.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/report_model.h"

namespace contest::kcidb {

using ojson = nlohmann::ordered_json;

// A test of record's outcome against the baseline, for the status.
struct Judgement {
    const Test* test = nullptr;
    bool judged = false;
    bool significant = false;
    std::string baseline;
};

struct Measured {
    Measured(std::string path_, double value_, std::string unit_, std::string comment_,
             ojson misc_ = ojson::object())
        : path(std::move(path_)),
          value(value_),
          unit(std::move(unit_)),
          comment(std::move(comment_)),
          misc(std::move(misc_)) {}
    std::string path;  // after "contest."
    double value = 0;
    std::string unit;  // "" for a dimensionless figure
    std::string comment;
    ojson misc = ojson::object();
    std::optional<Judgement> judgement;
};

// Every label's measures, by label: each load's time, ratio, CPU and the
// load's work, each probe's percentiles and missed deadlines, and what
// changed beyond noise against the baseline (on both sides).
std::map<std::string, std::vector<Measured>> measured_by_label(const ReportModel& model);

// A measure's path as KCIDB's path pattern takes it: "contest." and each
// dot-separated part with what else it holds made '_'.
std::string test_path(const std::string& measured_path);

// A judged test's status, and why a test that ran has no verdict.
struct Status {
    std::optional<std::string> status;  // none: the data to judge is missing
    std::string no_verdict;             // DONE: why neither PASS nor FAIL
};

// FAIL where the label is worse beyond noise, by the test's own effect
// (every test of record is lower-is-better); PASS where it is better
// beyond noise, or where nothing differs and the test could have seen a
// change of the --target-mde the user asked for; DONE otherwise: a test
// that could not see such a change claims nothing about it.
Status status_of(const Judgement& j, double target_mde_pct);

}  // namespace contest::kcidb
