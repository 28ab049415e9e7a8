#pragma once
// What `contest history` prints for a person, as the plain models of
// report/history_text.h that the outputs table renders (cmd_history.cpp
// reads the database and chooses; this names and puts together): the
// series listed, one series' points, and the changes found, as alerts.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"
#include "contest/history/series.h"
#include "contest/history/triage.h"
#include "contest/report/history_text.h"

namespace contest {

// "6.2-rc1 @0123456789ab", and its first run when a point is a file.
std::string kernel_name(const history::KernelPoint& p,
                        history::PointsBy by = history::PointsBy::kernel);

// What the points are called in what is printed: " kernels" or " files".
const char* points_word(history::PointsBy by);

// The series, a row each, and how many of other measures were left out.
HistorySeriesList series_list_model(const std::string& database,
                                    const std::vector<history::SeriesInfo>& series,
                                    std::size_t hidden);

// One series' points in its order, each with its runs and labels.
HistorySeriesPoints series_points_model(const history::SeriesKey& key,
                                        const history::SeriesPoints& s, history::PointsBy by);

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

// What a look at the series found: each group (history/triage.h) as an
// alert, its changes with their interval at options.level, their p, their
// points either side and their triage, then the contest compare and contest
// bisect commands that look closer. by_id finds each change's look; found
// is how many the look found (shown or not), only the state shown alone.
struct ChangesLook {
    std::size_t series = 0;
    std::size_t found = 0;
    std::size_t shown = 0;
    std::string only;
};
HistoryChanges changes_model(const ChangesLook& look,
                             const std::vector<history::ChangeGroup>& groups,
                             const std::map<long long, const LookedChange*>& by_id,
                             const ChangePointOptions& options, history::PointsBy by,
                             const AlertCommands& commands);

}  // namespace contest
