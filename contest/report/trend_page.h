#pragma once
// The history's trend page (docs/history.md, "Trend page"): one
// self-contained HTML page with a chart per series, the kernels along x in
// kernel order, every run a dot, the kernels' medians joined by a line over
// the band of their min-max, and each change point a line with its change.
// Hovering a dot, a kernel or a change shows what it is (SVG <title>s: no
// script). The input is plain: what the history and the change points say,
// put together by the caller (contest/cli/cmd_history.cpp).
#include <cstddef>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"

namespace contest {

struct TrendPoint {
    std::string kernel;               // "6.1.4 @0123456789ab": its release and commit
    std::vector<std::string> labels;  // of the files it ran in
    std::vector<double> values;       // every run's figure
};

struct TrendSeries {
    std::string name;     // "m1/w1/io_load/wall_s"
    std::string machine;  // one section of the page each
    std::string workload, load, measure;
    std::string order;               // "version order": how the points are ordered
    std::vector<TrendPoint> points;  // in kernel order
    std::vector<ChangePoint> changes;
    // Each change's id and state ("#7 untriaged"), as changes[i]'s; empty
    // where the page was made without the database's records.
    std::vector<std::string> change_states;
};

// One change of an alert, as the page's first section lists it.
struct TrendAlertChange {
    long long id = 0;
    std::string state;   // "untriaged", ...
    std::string series;  // its TrendSeries' name (the chart it links to)
    std::string host;
    double change = 0;   // after / before - 1
    std::string triage;  // "invalid by ann@lab 2026-...: a noisy host", "" untriaged
};

// The changes of one kernel pair over measures, loads and hosts
// (Perfherder's alert summary), the change that moved most first.
struct TrendAlert {
    std::string state;
    std::string before, after;  // the kernels either side
    std::vector<TrendAlertChange> changes;
};

struct TrendPage {
    std::string database;        // where the series are from, as shown to the user
    ChangePointOptions options;  // what the changes were found with
    std::vector<TrendSeries> series;
    std::vector<TrendAlert> alerts;  // most moved first
};

// The measures the page opens on: Time and the load's work.
bool trend_measure_first(const std::string& measure);

// The page: first the alerts and their changes' states (each linked to its
// chart), then a section per machine (in the order the series first name
// it) with the charts of Time and the load's work, then each other measure
// of it folded (a click away: <details>, no script). A page without series
// says so.
std::string trend_page_html(const TrendPage& page);

}  // namespace contest
