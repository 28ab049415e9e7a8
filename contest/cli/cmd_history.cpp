// `contest history [import PATH... | show SERIES | changes [SERIES...] | page
// [SERIES...]]`: every run in a results database (docs/history.md).
#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/history_models.h"
#include "contest/cli/history_triage.h"
#include "contest/cli/load_cli.h"
#include "contest/history/history_db.h"
#include "contest/history/import.h"
#include "contest/history/owed_saves.h"
#include "contest/history/series.h"
#include "contest/history/series_changes.h"
#include "contest/history/triage.h"
#include "contest/kbuild/commit_order.h"
#include "contest/report/formats.h"
#include "contest/report/outputs.h"
#include "contest/report/trend_page.h"
#include "contest/run/plan/config_record.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"
#include "contest/sys/utc_timestamp.h"

namespace contest {
namespace {

namespace fs = std::filesystem;
using namespace contest::history;

constexpr const char* kActions[] = {"list",    "import", "sync",   "show",
                                    "changes", "page",   "triage", "hosts"};

struct HistoryArgs {
    std::string action = "list";
    std::vector<std::string> words;  // after the action
    std::string db, results_dir = "results", measure, workdir, points = "kernel";
    std::string out = "history.html";  // page's
    bool all_measures = false;         // list's: every measure, not Time alone
    ChangePointOptions changes;
    TriageWords triage;  // triage's, and changes' and page's --status
};

// The measure list shows alone unless asked for the rest: Time, the figure
// every run has (a run's every measure of every load is a series: 188 for
// one run of the tour).
constexpr const char* kListedMeasure = "wall_s";

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

SeriesKey series_word(const std::string& action, const std::string& word) {
    const auto key = parse_series_key(word);
    if (!key)
        throw UsageError("contest history " + action + ": '" + printable(word) +
                         "' is not a series (mM/wW/LOAD/MEASURE, as contest history lists them)");
    return *key;
}

// The series an action's words name, else every series (of --measure).
std::vector<SeriesKey> chosen_series(const HistoryArgs& a, HistoryDb& db) {
    std::vector<SeriesKey> keys;
    for (const auto& w : a.words) keys.push_back(series_word(a.action, w));
    if (keys.empty())
        for (const auto& s : list_series(db, a.measure)) keys.push_back(s.key);
    return keys;
}

// A look's way of recording its changes: whether it said it cannot, and
// the changes it could not record, each given a negative id of its own.
struct Recording {
    bool said = false;
    long long unrecorded = 0;
};

// The changes one look found, recorded (a later look finds the same ids);
// where the database cannot record them (older than the triage's tables, or
// one this user may only read) they are shown as found, without ids, said
// once: a look reads, and never needs to write.
std::vector<RecordedChange> record_or_show(HistoryDb& db, const SeriesKey& key,
                                           const SeriesPoints& s,
                                           const std::vector<ChangePoint>& found,
                                           const std::string& by, const std::string& now,
                                           Recording& recording) {
    bool& said = recording.said;
    std::vector<long long> kernels;
    for (const auto& p : s.points) kernels.push_back(p.kernel_id);
    if (db.schema_version() >= kTriageSchemaVersion) {
        try {
            return record_changes(db, key, kernels, found, by, now);
        } catch (const std::exception& e) {
            if (!said) warn(std::string(e.what()) + "; the changes are shown without ids");
            said = true;
        }
    } else if (!said) {
        say("contest history: " + db.target().shown + " is of schema version " +
            std::to_string(db.schema_version()) + ", older than the triage's (" +
            std::to_string(kTriageSchemaVersion) +
            "): its changes are shown without ids (a writer, contest history import, brings it "
            "up)");
        said = true;
    }
    std::vector<RecordedChange> shown;
    for (const ChangePoint& c : found) {
        RecordedChange& r = shown.emplace_back();
        r.id = -++recording.unrecorded;
        const KernelPoint &before = s.points[c.index - 1], &after = s.points[c.index];
        r.series = key;
        r.machine = s.info.machine;
        r.before_kernel = before.kernel_id;
        r.after_kernel = after.kernel_id;
        r.before_name = kernel_name(before);
        r.after_name = kernel_name(after);
        r.before_commit = before.commit;
        r.after_commit = after.commit;
        r.moved = c.change;
        r.p = c.p;
    }
    return shown;
}

// Every change of the chosen series, each recorded (a later look finds the
// same id) and with its state.
std::vector<LookedChange> look_for_changes(const HistoryArgs& a, HistoryDb& db,
                                           const std::vector<SeriesKey>& keys) {
    std::vector<LookedChange> out;
    const std::string by = who_triages(a.triage.by), now = utc_timestamp();
    Recording said;
    for (const auto& key : keys) {
        const SeriesPoints s = series_points(db, key, tree_order(a), points_by(a));
        const std::vector<ChangePoint> found = series_changes(s, a.changes).changes;
        if (found.empty()) continue;
        const std::vector<RecordedChange> records =
            record_or_show(db, key, s, found, by, now, said);
        for (std::size_t i = 0; i < found.size() && i < records.size(); ++i)
            out.push_back({records[i], found[i], key, s.points.size(), s.order,
                           s.points[found[i].index - 1], s.points[found[i].index]});
    }
    return out;
}

std::optional<TriageStatus> status_filter(const HistoryArgs& a) {
    if (a.triage.status.empty()) return std::nullopt;
    const auto status = parse_triage_status(a.triage.status);
    if (!status)
        throw UsageError("contest history " + a.action + ": --status '" +
                         printable(a.triage.status) + "': expected one of " +
                         triage_status_names());
    return status;
}

int changes_action(const HistoryArgs& a) {
    const std::optional<TriageStatus> only = status_filter(a);
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::reading);
    const std::vector<SeriesKey> keys = chosen_series(a, db);
    const std::vector<LookedChange> looked = look_for_changes(a, db, keys);
    std::map<long long, const LookedChange*> by_id;
    std::vector<RecordedChange> shown;
    for (const auto& l : looked) {
        by_id[l.record.id] = &l;
        if (!only || l.record.status == *only) shown.push_back(l.record);
    }
    const ChangesLook look{keys.size(), looked.size(), shown.size(),
                           only ? triage_status_name(*only) : ""};
    const HistoryChanges changes = changes_model(look, group_changes(shown), by_id, a.changes,
                                                 points_by(a), {a.results_dir, a.db});
    std::cout << find_output("text", OutputUse::history_changes).history_changes(changes);
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
    const std::optional<TriageStatus> only = status_filter(a);
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::reading);
    TrendPage page;
    page.database = db.target().shown;
    page.options = a.changes;
    std::size_t changes = 0;
    const std::string by = who_triages(a.triage.by), now = utc_timestamp();
    std::vector<RecordedChange> records;
    Recording said;
    for (const auto& key : chosen_series(a, db)) {
        const SeriesPoints s = series_points(db, key, tree_order(a), points_by(a));
        TrendSeries t;
        t.name = key.text();
        t.machine = "m" + std::to_string(key.machine_id) + ": " + s.info.machine;
        t.workload = s.info.workload;
        t.load = key.load;
        t.measure = key.measure;
        t.order = kernel_order_name(s.order);
        t.changes = series_changes(s, a.changes).changes;
        for (const auto& p : s.points)
            t.points.push_back({kernel_name(p, points_by(a)), p.labels, p.values});
        if (!t.changes.empty())
            for (RecordedChange& r : record_or_show(db, key, s, t.changes, by, now, said)) {
                t.change_states.push_back(
                    (r.id > 0 ? "#" + std::to_string(r.id) + " " : std::string()) +
                    triage_status_name(r.status));
                if (!only || r.status == *only) records.push_back(std::move(r));
            }
        changes += t.changes.size();
        page.series.push_back(std::move(t));
    }
    for (const ChangeGroup& g : group_changes(records)) {
        TrendAlert& alert = page.alerts.emplace_back();
        alert.state = triage_status_name(g.status);
        alert.before = g.before_name;
        alert.after = g.after_name;
        for (const RecordedChange& r : g.changes) {
            std::string triage;
            if (r.status != TriageStatus::untriaged)
                triage = std::string(triage_status_name(r.status)) + " by " + r.by + " " + r.at +
                         (r.of ? " (downstream of #" + std::to_string(r.of) + ")" : "") +
                         (r.bug.empty() ? "" : " " + r.bug) + (r.note.empty() ? "" : ": " + r.note);
            if (r.back_after)
                triage += (triage.empty() ? "" : "; ") + std::string("back after #") +
                          std::to_string(r.back_after) + ", marked fixed";
            alert.changes.push_back(
                {r.id, triage_status_name(r.status), r.series.text(), r.machine, r.moved, triage});
        }
    }
    write_file_atomically(a.out, find_output("html", OutputUse::trend).trend(page));
    std::cout << "the trend page of " << page.series.size() << " series (" << changes
              << " change(s)) written to " << printable(a.out) << "\n";
    return kExitOk;
}

// Time's series (or --measure's), or with --all-measures every series,
// Time's first; the count of the others said after Time's.
int list_action(const HistoryArgs& a) {
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::reading);
    auto series = list_series(db, a.measure);
    const auto is_time = [](const SeriesInfo& s) { return s.key.measure == kListedMeasure; };
    const auto others = std::stable_partition(series.begin(), series.end(), is_time);
    const std::size_t hidden =
        a.measure.empty() && !a.all_measures ? static_cast<std::size_t>(series.end() - others) : 0;
    series.erase(series.end() - static_cast<std::ptrdiff_t>(hidden), series.end());
    const HistorySeriesList list = series_list_model(db.target().shown, series, hidden);
    std::cout << find_output("text", OutputUse::history_list).history_list(list);
    return kExitOk;
}

int import_action(const HistoryArgs& a) {
    if (a.words.empty())
        throw UsageError("contest history import: give the result files or folders to import");
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::writing);
    const std::vector<fs::path> paths(a.words.begin(), a.words.end());
    const ImportTally t = import_paths(db, paths, utc_timestamp());
    if (t.added == 0 && t.already_in == 0 && t.refused.empty()) {
        if (t.skipped.size() == 1) throw UsageError(t.skipped.front());
        for (const auto& s : t.skipped) say(s);
        throw UsageError(t.skipped.empty() ? "no result files (*.json) in " + join(a.words, ", ")
                                           : "no readable result file in " + join(a.words, ", "));
    }
    for (const auto& s : t.skipped) say("skipping " + s);
    for (const auto& r : t.refused) warn("skipping " + r);
    // A command that writes to the database brings in what it is owed.
    const OwedPaid paid = pay_owed_saves(db, a.results_dir, utc_timestamp());
    for (const auto& line : paid.said) say(line);
    if (paid.brought_in > 0)
        say("contest history import: " + std::to_string(paid.brought_in) + " owed save(s) of " +
            printable(a.results_dir) + " brought in as well");
    if (!paid.failure.empty())
        warn(paid.failure + "; " + std::to_string(paid.still_owed) + " save(s) still owed");
    std::cout << "imported " << t.added << " file(s) (" << t.runs << " runs) into "
              << db.target().shown << "; " << t.already_in << " already in";
    if (!t.refused.empty()) std::cout << "; " << t.refused.size() << " refused";
    std::cout << "\n";
    // Result files whose runs are not in the database: the import finished,
    // but not whole (exit 1, as a run some of whose runs failed).
    return t.refused.empty() ? kExitOk : kExitSomeRunsFailed;
}

// What the results folder's list owes the database brought in: each owed
// file as it stands now (docs/history.md, "When the database is away").
// Exit 3 when the database fails again (the rest stay owed).
int sync_action(const HistoryArgs& a) {
    if (!a.words.empty())
        throw UsageError("contest history sync: takes no arguments (" + printable(a.words.front()) +
                         "); --results names the folder");
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::writing);
    const OwedPaid paid = pay_owed_saves(db, a.results_dir, utc_timestamp());
    for (const auto& line : paid.said) say(line);
    std::cout << "brought " << paid.brought_in << " owed file(s) (" << paid.runs << " runs) into "
              << db.target().shown << "; " << paid.gone << " no longer there; " << paid.still_owed
              << " still owed\n";
    if (!paid.failure.empty()) throw EnvironmentError(paid.failure);
    return kExitOk;
}

int show_action(const HistoryArgs& a) {
    if (a.words.size() != 1)
        throw UsageError("contest history show: give one series (contest history lists them)");
    const SeriesKey key = series_word("show", a.words.front());
    HistoryDb db(db_target(a.db, a.results_dir), OpenFor::reading);
    const SeriesPoints s = series_points(db, key, tree_order(a), points_by(a));
    std::cout << find_output("text", OutputUse::history_show)
                     .history_show(series_points_model(key, s, points_by(a)));
    return kExitOk;
}

}  // namespace

int cmd_history(int argc, char** argv) {
    CommandLine cl;
    cl.name = "history";
    cl.usage =
        "contest history [list | import PATH... | sync | show SERIES | changes [SERIES...] | page "
        "[SERIES...] | triage CHANGE [--status STATE] | hosts] [options]";
    cl.summary =
        "Every run in a results database (SQLite by default, a file beside the results; "
        "PostgreSQL with --db postgresql://...). list (the default): the series, one machine, "
        "workload, load and measure over kernels: Time's (wall_s), the other measures' with "
        "--all-measures or --measure. import PATH...: result files and folders into "
        "the database; a file already in (the same bytes) is not counted again, nor a run "
        "saved twice (its machine, workload, kernel, label and start, wherever its files lie: the "
        "complete save, "
        "else the one with more runs, stands for it); a file the database refuses is a warning, "
        "the others go in, and the exit is 1. Reading never changes the database's schema; "
        "import migrates it. sync: the saves a run could not make to the database (a server "
        "away, a disk full), listed in --results' .history-owed, brought in (each run's later "
        "saves, and its next start, do it too). show SERIES: "
        "the series' kernels in kernel order (commit order where they are builds of one "
        "tree, a git repository here; else version order where each kernel's release "
        "differs; else the order of their first runs), each with its runs' median and range. "
        "changes: "
        "where a series moved and stayed (every run of each kernel; binary segmentation by a "
        "t-test on the kernels' medians, corrected for the splits tried), each with the kernels "
        "either side, the change and its interval, its p, and the contest compare and contest "
        "bisect commands that look closer (each word quoted for a shell, --db kept). page: one "
        "self-contained HTML page (no script, nothing "
        "fetched: it works offline and as a mail attachment) with a chart per series, every "
        "run of every kernel in kernel order and its changes marked, written to --out. Each change "
        "found is recorded with an id a later look finds again (its series, the same way, within "
        "2 points of where it was), and the changes of one kernel pair over measures, loads and "
        "hosts are one alert, the change that moved most first. triage CHANGE --status STATE "
        "[--note TEXT] [--bug URL] [--of CHANGE]: a change's state, who set it, when and why "
        "(every setting kept; without --status, shows them). hosts: per host, what it runs, its "
        "last run and when, its failed runs: which host stopped.";
    // A lab's shared database is a line of its config file (db = postgresql://...).
    cl.accepts_config = true;
    HistoryArgs a;
    // clang-format off
    using enum OptionScope;
    add_options(cl, {
        {"db", host, po::value(&a.db)->value_name("FILE|URI"),
         "the database: a SQLite file, or postgresql://USER@HOST[:PORT]/NAME (libpq's URI; "
         "its password in ~/.pgpass, PGPASSFILE, PGPASSWORD or a service file, not in the URI) "
         "(default: history.sqlite in --results)"},
        {"results", host, po::value(&a.results_dir)->value_name("D")->default_value("results"),
         "where the default database file and the list of owed saves are"},
        {"points", host, checked(&a.points, [](const std::string& p) {
             if (p != "kernel" && p != "file")
                 throw UsageError("--points '" + printable(p) + "': expected kernel or file");
         })->value_name("P")->default_value(a.points),
         "show, changes and page: what a point of a series is: a kernel (every run of it), or a "
         "result file (in time order: one kernel over days, an A/A series)"},
        {"workdir", host, po::value(&a.workdir)->value_name("D"),
         "where git's output goes when a series' kernels are put in their tree's commit order "
         "(default $XDG_CACHE_HOME/contest)"},
        {"measure", host, po::value(&a.measure)->value_name("M"),
         "list, changes and page: only the series of this measure (wall_s, "
         "latency_cyclic_p99_us, ...)"},
        {"all-measures", host, po::bool_switch(&a.all_measures),
         "list: every measure's series, Time's (wall_s) first (default: Time's alone, and how "
         "many others there are)"},
        {"out", host, po::value(&a.out)->value_name("FILE")->default_value(a.out),
         "page: the HTML file written"},
        {"alpha", host, bounded(&a.changes.alpha, kMinAlpha, kMaxAlpha)->value_name("P")
             ->default_value(a.changes.alpha),
         "changes and page: the p a change must be below (the likelihood ratio of a step against "
         "a random walk fitted to the series, corrected for the splits tried: conservative); the "
         "default keeps false alarms under 0.05 a series of 10 to 200 kernels when the machine "
         "drifts by at most a random walk of 0.3% a kernel or an AR(1) of 0.9 with 0.5% steps, "
         "not beyond (0.5% a kernel: up to 0.07; docs/history.md)"},
        {"min-segment", host, bounded<std::size_t>(&a.changes.min_segment, 1, 1000)->value_name("N")
             ->default_value(a.changes.min_segment),
         "changes and page: kernels on each side of a change, at least"},
        {"min-change", host, bounded(&a.changes.min_change, 0.0, 10.0)->value_name("F")
             ->default_value(a.changes.min_change),
         "changes and page: the smallest change reported, as a fraction (0.01: 1%)"},
        {"status", host, po::value(&a.triage.status)->value_name("STATE"),
         "triage: the change's new state; changes and page: only the changes in it (untriaged, "
         "acknowledged, investigating, invalid, improvement, fixed, wontfix, downstream)"},
        {"note", host, po::value(&a.triage.note)->value_name("TEXT"), "triage: why"},
        {"bug", host, po::value(&a.triage.bug)->value_name("URL"),
         "triage: the bug or mail thread that says more (http:// or https://)"},
        {"of", host, po::value(&a.triage.of)->value_name("CHANGE"),
         "triage --status downstream: the change this one follows from"},
        {"by", host, po::value(&a.triage.by)->value_name("WHO"),
         "triage: who (default USER@HOST); changes and page: who a change is found by"},
        {"word", host, po::value(&a.words)->value_name("ARG"), "the action's arguments", FromConfig::no},
    });
    // clang-format on
    cl.positional.add("word", -1);
    // The action comes first: `contest history import [options] PATH...`.
    int skip = 0;
    if (argc > 1 && argv[1][0] != '-') {
        a.action = argv[1];
        if (std::find(std::begin(kActions), std::end(kActions), a.action) == std::end(kActions))
            throw UsageError("contest history: unknown action '" + printable(a.action) +
                             "' (expected list, import, sync, show, changes, page, triage or "
                             "hosts)");
        skip = 1;
    }
    po::variables_map vm;
    if (!parse_command_line(cl, argc - skip, argv + skip, vm)) return kExitOk;
    if (a.action == "import") return import_action(a);
    if (a.action == "sync") return sync_action(a);
    if (a.action == "show") return show_action(a);
    if (a.action == "changes") return changes_action(a);
    if (a.action == "page") return page_action(a);
    if (a.action == "triage") {
        HistoryDb db(db_target(a.db, a.results_dir), OpenFor::reading);
        return history_triage(db, a.words, a.triage);
    }
    if (a.action == "hosts") {
        if (!a.words.empty())
            throw UsageError("contest history hosts: takes no arguments (" +
                             printable(a.words.front()) + ")");
        HistoryDb db(db_target(a.db, a.results_dir), OpenFor::reading);
        return history_hosts(db, a.results_dir);
    }
    if (!a.words.empty())
        throw UsageError("contest history list: takes no arguments (" + printable(a.words.front()) +
                         ")");
    if (a.all_measures && !a.measure.empty())
        throw UsageError("contest history: --all-measures and --measure: give one");
    return list_action(a);
}

}  // namespace contest
