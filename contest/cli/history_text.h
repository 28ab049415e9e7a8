#pragma once
// What `contest history` prints for a person (cmd_history.cpp reads the
// database and chooses): the series listed, one series' points, and the
// changes found, as alerts. Columns are padded by terminal cells, as the
// reports' are (report/formats.h), not by bytes.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"
#include "contest/history/series.h"
#include "contest/history/triage.h"

namespace contest {

// "6.2-rc1 @0123456789ab", and its first run when a point is a file.
std::string kernel_name(const history::KernelPoint& p,
                        history::PointsBy by = history::PointsBy::kernel);

// What the points are called in what is printed: " kernels" or " files".
const char* points_word(history::PointsBy by);

// The series, a row each: its key, kernels, runs, machine and workload.
// The key's column is 40 cells at least, so a list of Time's series is the
// start of the list of every measure's.
std::string series_list_text(const std::vector<history::SeriesInfo>& series);

// One series' points in its order, each with its runs' median and range and
// its labels.
std::string series_points_text(const history::SeriesKey& key, const history::SeriesPoints& s,
                               history::PointsBy by);

// A change as one look found it: its record (id, state) and the points
// either side.
struct LookedChange {
    history::RecordedChange record;
    ChangePoint change;
    history::SeriesKey key;
    std::size_t points = 0;
    history::KernelOrder order = history::KernelOrder::time;
    history::KernelPoint before, after;
};

// What the commands a change suggests keep of the command's own options:
// --results when not the default, --db as given (its password left out).
struct AlertCommands {
    std::string results_dir, db;
};

// Each group (history/triage.h) as an alert: its changes, each with its
// interval at options.level, its p, its points either side and its triage,
// then the contest compare and contest bisect commands that look closer.
// by_id finds each change's look.
std::string alerts_text(const std::vector<history::ChangeGroup>& groups,
                        const std::map<long long, const LookedChange*>& by_id,
                        const ChangePointOptions& options, history::PointsBy by,
                        const AlertCommands& commands);

}  // namespace contest
