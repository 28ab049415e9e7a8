#pragma once
// What `contest history` prints for a person, rendered through the outputs
// table (report/outputs.h: the uses history_list, history_show and
// history_changes, text only): the series listed, one series' points, and
// the changes found, as alerts. The models are plain: what the history and
// the change points say, named and put together by the caller
// (contest/cli/history_models.cpp). Columns are padded by terminal cells,
// as the reports' are (report/formats.h), not by bytes.
#include <cstddef>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"

namespace contest {

// contest history list: the series, a row each.
struct HistorySeriesRow {
    std::string series;  // its key: "m1/w1/io_load/wall_s"
    int kernels = 0, runs = 0;
    std::string machine, workload;
};

struct HistorySeriesList {
    std::string database;  // as shown: the file, or the URI without its password
    std::vector<HistorySeriesRow> series;
    // Series of other measures than Time's left out (0 with --all-measures
    // or --measure).
    std::size_t hidden = 0;
};

// contest history show: one series' points in its order.
struct HistoryPointRow {
    std::string kernel;  // "6.2-rc1 @0123456789ab", and its first run when a point is a file
    std::vector<double> values;  // every run's figure
    std::vector<std::string> labels;
};

struct HistorySeriesPoints {
    std::string series, machine, workload;
    std::string points_word;  // " kernels" or " files"
    std::string order;        // "version order"
    std::vector<HistoryPointRow> points;
};

// contest history changes: one change as its alert lists it.
struct HistoryAlertChange {
    long long id = 0;    // 0: not recorded
    std::string status;  // "untriaged", ...
    bool triaged = false;
    std::string series;
    ChangePoint change;
    std::size_t points = 0;     // of its series
    std::string order;          // "commit order"
    std::string before, after;  // the kernels either side
    long long back_after = 0;   // the fixed regression it is back after, 0 none
    std::string by, at, bug, note;
    long long of = 0;  // the change it is downstream of, 0 none
};

// The changes of one kernel pair over measures, loads and hosts.
struct HistoryAlert {
    std::string status;
    std::string before, after;
    std::size_t measures = 0, loads = 0, hosts = 0;
    std::vector<HistoryAlertChange> changes;
    // The commands that look closer (contest compare, contest bisect), each
    // its words, quoted for a shell as rendered.
    std::vector<std::vector<std::string>> commands;
};

struct HistoryChanges {
    std::size_t series = 0;  // looked at
    double level = 0.95;     // of each change's interval
    double alpha = 0;
    std::size_t min_segment = 0;
    double min_change = 0;
    std::string points_word;  // " kernels" or " files"
    std::size_t found = 0;    // changes found, shown or not
    std::size_t shown = 0;
    std::string only;  // the state shown alone (--status), "" every state
    std::vector<HistoryAlert> alerts;
};

std::string history_series_list_text(const HistorySeriesList& list);
std::string history_series_points_text(const HistorySeriesPoints& points);
std::string history_changes_text(const HistoryChanges& changes);

}  // namespace contest
