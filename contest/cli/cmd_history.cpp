// `contest history [import PATH... | show SERIES | changes [SERIES...] | page
// [SERIES...]]`: every run in a results database (docs/history.md).
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"
#include "contest/analysis/stats.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/load_cli.h"
#include "contest/history/history_db.h"
#include "contest/history/import.h"
#include "contest/history/series.h"
#include "contest/kbuild/commit_order.h"
#include "contest/report/formats.h"
#include "contest/report/trend_page.h"
#include "contest/run/config_record.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

namespace fs = std::filesystem;
using namespace contest::history;

constexpr const char* kActions[] = {"list", "import", "show", "changes", "page"};

struct HistoryArgs {
    std::string action = "list";
    std::vector<std::string> words;  // after the action
    std::string db, results_dir = "results", measure, workdir, points = "kernel";
    std::string out = "history.html";  // page's
    ChangePointOptions changes;
};

// Builds of one tree put in its commits' order, read from the tree where it
// is a git repository here (only read; git's output in the workdir).
CommitOrder tree_order(const HistoryArgs& a) {
    return [workdir = a.workdir.empty() ? default_workdir() : fs::path(a.workdir)](
               const std::string& tree, const std::vector<std::string>& commits) {
        const fs::path scratch = workdir / "history";
        std::error_code ec;
        fs::create_directories(scratch, ec);
        if (ec) return std::vector<std::string>{};
        return kbuild::commits_in_tree_order(tree, commits, scratch);
    };
}

PointsBy points_by(const HistoryArgs& a) {
    return a.points == "file" ? PointsBy::file : PointsBy::kernel;
}

// What the points are called in what is printed.
const char* points_word(const HistoryArgs& a) {
    return points_by(a) == PointsBy::file ? " files" : " kernels";
}

SeriesKey series_word(const std::string& action, const std::string& word) {
    const auto key = parse_series_key(word);
    if (!key)
        throw UsageError("contest history " + action + ": '" + printable(word) +
                         "' is not a series (mM/wW/LOAD/MEASURE, as contest history lists them)");
    return *key;
}

std::string kernel_name(const KernelPoint& p, PointsBy by = PointsBy::kernel) {
    std::string name = p.release.empty() ? "?" : p.release;
    if (!p.commit.empty()) name += " @" + p.commit.substr(0, 12);
    if (by == PointsBy::file) name += " " + p.first_run_at;
    return name;
}

// The command that looks at a change closer: compare of the two kernels'
// labels, and bisect between their commits where both are builds of one tree.
void print_next_steps(const HistoryArgs& a, const KernelPoint& before, const KernelPoint& after) {
    const std::string results = a.results_dir == "results" ? "" : " --results " + a.results_dir;
    if (!before.labels.empty() && !after.labels.empty())
        std::cout << "    contest compare" << printable(results) << " "
                  << printable(before.labels.front()) << " " << printable(after.labels.front())
                  << "\n";
    if (!before.commit.empty() && !after.commit.empty() && before.tree == after.tree &&
        before.commit != after.commit)
        std::cout << "    contest bisect --good " << printable(before.tree) << "@"
                  << printable(before.commit) << " --bad " << printable(after.tree) << "@"
                  << printable(after.commit) << " -- LOADS...\n";
}

// The series an action's words name, else every series (of --measure).
std::vector<SeriesKey> chosen_series(const HistoryArgs& a, HistoryDb& db) {
    std::vector<SeriesKey> keys;
    for (const auto& w : a.words) keys.push_back(series_word(a.action, w));
    if (keys.empty())
        for (const auto& s : list_series(db, a.measure)) keys.push_back(s.key);
    return keys;
}

// Where the series moved and stayed: every run of each kernel, in kernel order.
std::vector<ChangePoint> changes_of(const SeriesPoints& s, const ChangePointOptions& options) {
    std::vector<std::vector<double>> values;
    for (const auto& p : s.points) values.push_back(p.values);
    return find_change_points(values, options);
}

int changes_action(const HistoryArgs& a) {
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::reading);
    const std::vector<SeriesKey> keys = chosen_series(a, db);
    int found = 0;
    for (const auto& key : keys) {
        const SeriesPoints s = series_points(db, key, tree_order(a), points_by(a));
        for (const ChangePoint& c : changes_of(s, a.changes)) {
            const KernelPoint& before = s.points[c.index - 1];
            const KernelPoint& after = s.points[c.index];
            std::cout << printable(key.text()) << ": " << signed_percent(100 * c.change) << " ("
                      << number_text(100 * a.changes.level) << "%: " << signed_percent(100 * c.low)
                      << " to " << signed_percent(100 * c.high) << "), p " << format_p(c.p)
                      << " over " << s.points.size() << points_word(a) << " ("
                      << kernel_order_name(s.order) << "), between "
                      << printable(kernel_name(before, points_by(a))) << " (the last of "
                      << c.before << ") and " << printable(kernel_name(after, points_by(a)))
                      << " (the first of " << c.after << ")\n";
            print_next_steps(a, before, after);
            ++found;
        }
    }
    if (found == 0)
        std::cout << "no change in " << keys.size() << " series (alpha "
                  << number_text(a.changes.alpha) << ", at least " << a.changes.min_segment
                  << points_word(a) << " a side, at least "
                  << number_text(100 * a.changes.min_change) << "%)\n";
    return kExitOk;
}

// The trend page (contest/report/trend_page.h) of the chosen series, each
// with its change points as changes finds them, written to --out.
int page_action(const HistoryArgs& a) {
    // What --out names is the user's to mend, before the database is read.
    std::error_code ec;
    const auto out = fs::status(a.out, ec);
    if (fs::is_directory(out))
        throw UsageError("--out " + printable(a.out) + ": a folder; give the page's file");
    if (fs::exists(out) && !fs::is_regular_file(out))
        throw UsageError("--out " + printable(a.out) +
                         ": not a regular file; give the page's file");
    const auto folder = fs::path(a.out).parent_path();
    if (!folder.empty() && !fs::is_directory(folder, ec))
        throw UsageError("--out " + printable(a.out) + ": no folder " + printable(folder.string()) +
                         " to write it in");
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::reading);
    TrendPage page;
    page.database = db.target().shown;
    page.options = a.changes;
    std::size_t changes = 0;
    for (const auto& key : chosen_series(a, db)) {
        const SeriesPoints s = series_points(db, key, tree_order(a), points_by(a));
        TrendSeries t;
        t.name = key.text();
        t.machine = "m" + std::to_string(key.machine_id) + ": " + s.info.machine;
        t.workload = s.info.workload;
        t.load = key.load;
        t.measure = key.measure;
        t.order = kernel_order_name(s.order);
        t.changes = changes_of(s, a.changes);
        for (const auto& p : s.points)
            t.points.push_back({kernel_name(p, points_by(a)), p.labels, p.values});
        changes += t.changes.size();
        page.series.push_back(std::move(t));
    }
    write_file_atomically(a.out, trend_page_html(page));
    std::cout << "the trend page of " << page.series.size() << " series (" << changes
              << " change(s)) written to " << printable(a.out) << "\n";
    return kExitOk;
}

int list_action(const HistoryArgs& a) {
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::reading);
    const auto series = list_series(db, a.measure);
    if (series.empty()) {
        std::cout << "no series in " << db.target().shown << "\n";
        return kExitOk;
    }
    std::printf("%-40s %7s %5s  %s\n", "series", "kernels", "runs", "machine, workload");
    for (const auto& s : series)
        std::printf("%-40s %7d %5d  %s, %s\n", printable(s.key.text()).c_str(), s.kernels, s.runs,
                    printable(s.machine).c_str(), printable(s.workload).c_str());
    return kExitOk;
}

int import_action(const HistoryArgs& a) {
    if (a.words.empty())
        throw UsageError("contest history import: give the result files or folders to import");
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::writing);
    const std::vector<fs::path> paths(a.words.begin(), a.words.end());
    const ImportTally t = import_paths(db, paths, utc_timestamp());
    if (t.added == 0 && t.already_in == 0) {
        if (t.skipped.size() == 1) throw UsageError(t.skipped.front());
        for (const auto& s : t.skipped) say(s);
        throw UsageError(t.skipped.empty() ? "no result files (*.json) in " + join(a.words, ", ")
                                           : "no readable result file in " + join(a.words, ", "));
    }
    for (const auto& s : t.skipped) say("skipping " + s);
    std::cout << "imported " << t.added << " file(s) (" << t.runs << " runs) into "
              << db.target().shown << "; " << t.already_in << " already in\n";
    return kExitOk;
}

int show_action(const HistoryArgs& a) {
    if (a.words.size() != 1)
        throw UsageError("contest history show: give one series (contest history lists them)");
    const SeriesKey key = series_word("show", a.words.front());
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::reading);
    const SeriesPoints s = series_points(db, key, tree_order(a), points_by(a));
    std::cout << printable(key.text()) << ": " << printable(s.info.machine) << ", "
              << printable(s.info.workload) << "; " << s.points.size() << points_word(a) << " in "
              << kernel_order_name(s.order) << "\n";
    std::printf("%-32s %5s %12s %12s %12s  %s\n", "kernel", "runs", "median", "min", "max",
                "labels");
    for (const auto& p : s.points) {
        const stats::Summary v = stats::summarize(p.values);
        std::printf("%-32s %5zu %12s %12s %12s  %s\n",
                    printable(kernel_name(p, points_by(a))).c_str(), v.n,
                    four_digits(v.median).c_str(), four_digits(v.min).c_str(),
                    four_digits(v.max).c_str(), printable(join(p.labels, ",")).c_str());
    }
    return kExitOk;
}

}  // namespace

int cmd_history(int argc, char** argv) {
    CommandLine cl;
    cl.name = "history";
    cl.usage =
        "contest history [list | import PATH... | show SERIES | changes [SERIES...] | page "
        "[SERIES...]] [options]";
    cl.summary =
        "Every run in a results database (SQLite by default, a file beside the results; "
        "PostgreSQL with --db postgresql://...). list (the default): the series, one machine, "
        "workload, load and measure over kernels. import PATH...: result files and folders into "
        "the database; a file already in (the same bytes) is not counted again. show SERIES: "
        "the series' kernels in kernel order (commit order where they are builds of one "
        "tree, a git repository here; else version order where each kernel's release "
        "differs; else the order of their first runs), each with its runs' median and range. "
        "changes: "
        "where a series moved and stayed (every run of each kernel; binary segmentation by a "
        "t-test on the kernels' medians, corrected for the splits tried), each with the kernels "
        "either side, the change and its interval, its p, and the contest compare and contest "
        "bisect commands that look closer. page: one self-contained HTML page (no script, nothing "
        "fetched: it works offline and as a mail attachment) with a chart per series, every "
        "run of every kernel in kernel order and its changes marked, written to --out.";
    // A lab's shared database is a line of its config file (db = postgresql://...).
    cl.accepts_config = true;
    HistoryArgs a;
    // clang-format off
    cl.options.add_options()
        ("db", po::value(&a.db)->value_name("FILE|URI"),
         "the database: a SQLite file, or postgresql://USER@HOST[:PORT]/NAME (libpq's URI; "
         "its password in ~/.pgpass, PGPASSFILE, PGPASSWORD or a service file, not in the URI) "
         "(default: history.sqlite in --results)")
        ("results", po::value(&a.results_dir)->value_name("D")->default_value("results"),
         "where the default database file is")
        ("points", checked(&a.points, [](const std::string& p) {
             if (p != "kernel" && p != "file")
                 throw UsageError("--points '" + printable(p) + "': expected kernel or file");
         })->value_name("P")->default_value(a.points),
         "show, changes and page: what a point of a series is: a kernel (every run of it), or a "
         "result file (in time order: one kernel over days, an A/A series)")
        ("workdir", po::value(&a.workdir)->value_name("D"),
         "where git's output goes when a series' kernels are put in their tree's commit order "
         "(default $XDG_CACHE_HOME/contest)")
        ("measure", po::value(&a.measure)->value_name("M"),
         "list, changes and page: only the series of this measure (wall_s, "
         "latency_cyclic_p99_us, ...)")
        ("out", po::value(&a.out)->value_name("FILE")->default_value(a.out),
         "page: the HTML file written")
        ("alpha", bounded(&a.changes.alpha, kMinAlpha, kMaxAlpha)->value_name("P")
             ->default_value(a.changes.alpha),
         "changes and page: the p (corrected for the splits tried) a change must be below; "
         "the default keeps false alarms under 0.05 a series of 10 to 200 kernels "
         "(docs/history.md)")
        ("min-segment", bounded<std::size_t>(&a.changes.min_segment, 1, 1000)->value_name("N")
             ->default_value(a.changes.min_segment),
         "changes and page: kernels on each side of a change, at least")
        ("min-change", bounded(&a.changes.min_change, 0.0, 10.0)->value_name("F")
             ->default_value(a.changes.min_change),
         "changes and page: the smallest change reported, as a fraction (0.01: 1%)")
        ("word", po::value(&a.words)->value_name("ARG"), "the action's arguments");
    // clang-format on
    cl.positional.add("word", -1);
    // The action comes first: `contest history import [options] PATH...`.
    int skip = 0;
    if (argc > 1 && argv[1][0] != '-') {
        a.action = argv[1];
        if (std::find(std::begin(kActions), std::end(kActions), a.action) == std::end(kActions))
            throw UsageError("contest history: unknown action '" + printable(a.action) +
                             "' (expected list, import, show, changes or page)");
        skip = 1;
    }
    po::variables_map vm;
    if (!parse_command_line(cl, argc - skip, argv + skip, vm)) return kExitOk;
    if (a.action == "import") return import_action(a);
    if (a.action == "show") return show_action(a);
    if (a.action == "changes") return changes_action(a);
    if (a.action == "page") return page_action(a);
    if (!a.words.empty())
        throw UsageError("contest history list: takes no arguments (" + printable(a.words.front()) +
                         ")");
    return list_action(a);
}

}  // namespace contest
