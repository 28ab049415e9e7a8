#pragma once
// The history's series: one machine, workload, load and measure over the
// kernels it ran on (docs/history.md, "Series"). A point is one kernel, with
// every ok run's figure of the measure from every file of that kernel.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "contest/history/history_db.h"
#include "contest/result/result_file.h"

namespace contest::history {

struct SeriesKey {
    long long machine_id = 0, workload_id = 0;
    std::string load, measure;
    // "m1/w2/io_load/wall_s": what `contest history` lists and show takes.
    std::string text() const;
};
// nullopt when text is not of that shape.
std::optional<SeriesKey> parse_series_key(const std::string& text);

// The series of `load` and `measure` that `file` is a point of: its
// machine's and workload's rows (file_keys.h) as the database holds them.
// UsageError when either is not in the database (the file, or any of its
// machine and workload, was never stored).
SeriesKey series_of_file(HistoryDb& db, const ResultFile& file, const std::string& load,
                         const std::string& measure);

struct SeriesInfo {
    SeriesKey key;
    std::string machine, workload;  // their names (file_keys.h)
    int kernels = 0, runs = 0;
};

// Every series with at least one ok run, by machine, workload, load and
// measure; only those of `measure` when it is not empty.
std::vector<SeriesInfo> list_series(HistoryDb& db, const std::string& measure);

struct KernelPoint {
    long long kernel_id = 0;
    long long file_id = 0;  // by file: the point's file
    std::string release, tree, ref, commit;
    std::string first_run_at;         // the earliest started_at of its files
    std::vector<std::string> labels;  // the files' labels, each once
    std::vector<double> values;       // every ok run's figure, in the files' order
};

enum class KernelOrder { commits, versions, time };
const char* kernel_order_name(KernelOrder order);

struct SeriesPoints {
    SeriesInfo info;
    KernelOrder order = KernelOrder::time;
    std::vector<KernelPoint> points;  // in that order
};

// The commits given, oldest first as the tree's history has them; empty
// when it cannot say (the tree is gone, a commit is not in it).
using CommitOrder = std::function<std::vector<std::string>(
    const std::string& tree, const std::vector<std::string>& commits)>;

// What a point of a series is: a kernel (every run of it, whichever file),
// or one result file (one kernel watched over days: the machine's own drift,
// an A/A series).
enum class PointsBy { kernel, file };

// The series' points in kernel order: commit order where every kernel is a
// build of one tree whose commits commit_order orders, else version order
// where every release differs, else the order of their first runs (always,
// by file). UsageError for a series not in the database.
SeriesPoints series_points(HistoryDb& db, const SeriesKey& key,
                           const CommitOrder& commit_order = {}, PointsBy by = PointsBy::kernel);

// Kernel releases compared as Debian compares versions: digits as numbers,
// "-rc" before the release it leads to (6.2-rc1 < 6.2 < 6.2.1).
bool release_before(const std::string& a, const std::string& b);

}  // namespace contest::history
