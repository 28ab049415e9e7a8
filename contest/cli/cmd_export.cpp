// `contest export --origin NAME LABEL|PATH...`: result files as one KCIDB
// submission (docs/kcidb.md), for kcidb-submit.
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/report_model.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/judging_options.h"
#include "contest/cli/result_sides.h"
#include "contest/history/history_db.h"
#include "contest/history/stored_files.h"
#include "contest/history/triage.h"
#include "contest/report/kcidb_export.h"
#include "contest/report/kcidb_issues.h"
#include "contest/report/outputs.h"
#include "contest/report/report.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

// --changes: the database's alerts and their states as KCIDB issues and
// incidents (docs/kcidb.md, "Changes as issues").
int export_changes(const std::string& db, const std::string& results_dir,
                   const std::string& origin) {
    using namespace history;
    HistoryDb store(db_target(db, results_dir), OpenFor::reading);
    std::vector<KcidbAlert> alerts;
    for (const ChangeGroup& g : group_changes(recorded_changes(store))) {
        KcidbAlert& a = alerts.emplace_back();
        a.key = g.key;
        a.before = g.before_name;
        a.after = g.after_name;
        a.state = triage_status_name(g.status);
        for (const RecordedChange& c : g.changes) {
            a.version += static_cast<int>(triage_history(store, c.id).size());
            a.changes.push_back({c.id, c.series.text(), c.machine, c.series.load, c.series.measure,
                                 c.moved, c.p, triage_status_name(c.status), c.bug, c.note});
        }
    }
    std::cout << kcidb_issues(alerts, origin).dump(2) << "\n" << std::flush;
    return kExitOk;
}

}  // namespace

int cmd_export(int argc, char** argv) {
    CommandLine cl;
    cl.name = "export";
    cl.usage = "contest export [options] --origin NAME LABEL|PATH... | --changes";
    cl.summary =
        "Prints the result files as one submission to KernelCI's results database (KCIDB, "
        "kcidb-io schema v4.4), for kcidb-submit: a checkout and a build per label, a test per "
        "load and measure (contest.LOAD.MEASURE, the latency probes' percentiles), each with its "
        "number and unit and the machine as its environment; PASS, FAIL or DONE only against a "
        "--baseline named here. The same files give the same ids. Each argument is a label "
        "(looked up under --results, or with --db in a results database) or a result file or "
        "folder. --changes: instead, the results database's changes (contest history changes "
        "records them) as KCIDB issues, each alert an issue and each of its changes an incident, "
        "with their triage states.";
    cl.accepts_config = true;
    std::vector<std::string> sides;
    std::string results_dir = "results", baseline, origin, format = "kcidb", db;
    const std::string format_help = outputs_help(OutputUse::export_);
    double target_mde = 5;
    bool changes = false;
    JudgingNames correction;
    ReportOptions options;
    using enum OptionScope;
    // clang-format off
    add_options(cl, {
        {"origin", host, checked(&origin, check_kcidb_origin)->value_name("NAME"),
         "your CI system's name in KCIDB, the start of every id (lowercase letters, digits, _)"},
        {"format,f", host, checked(&format, [](const std::string& f) { find_output(f, OutputUse::export_); })->value_name("F")->default_value("kcidb"),
         format_help},
        {"results", host, po::value(&results_dir)->value_name("D")->default_value("results"),
         "where labels are looked up (not in its examples/ folder, the committed examples: "
         "--results results/examples for those)"},
        {"changes", host, po::bool_switch(&changes),
         "the database's changes and their triage as KCIDB issues and incidents (no labels)"},
        {"db", host, po::value(&db)->value_name("FILE|URI"),
         "look the labels up in this results database instead (a SQLite file, or "
         "postgresql://..., its password in ~/.pgpass or PGPASSWORD; contest history): every file "
         "of each label, as it was saved"},
        {"baseline,b", host, po::value(&baseline)->value_name("L"),
         "judge every other label against L: a test of record gets FAIL where the label is worse "
         "beyond noise, PASS where it is better or where nothing differs and the test could see "
         "a change of --target-mde, DONE where it could not (without it, no status)"},
        {"target-mde", host, bounded(&target_mde, 0.01, 1000.0)->value_name("PCT")->default_value(5),
         "with --baseline: the largest change, in % (points for missed_pct), a test may be unable "
         "to see and still PASS"},
        {"side", host, po::value(&sides)->value_name("LABEL|PATH"), "a label, result file or folder"},
    });
    // clang-format on
    add_options(cl, judging_option_rows(options, correction));
    cl.positional.add("side", -1);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    if (origin.empty())
        throw UsageError("contest export: give --origin NAME (your CI system's name in KCIDB)");
    if (changes) {
        if (!sides.empty())
            throw UsageError("contest export --changes: takes no labels (" +
                             printable(sides.front()) + ")");
        return export_changes(db, results_dir, origin);
    }
    if (sides.empty()) throw UsageError("contest export: give the labels or result files");
    check_judging_options(options, correction);

    std::vector<ResultFile> files;
    if (vm.count("db")) {
        history::HistoryDb store(history::db_target(db, results_dir), history::OpenFor::reading);
        files = history::stored_files(store, sides);
    } else {
        files = ResultSides(results_dir).resolve_all(sides);
    }
    if (!baseline.empty()) options.baseline = baseline;
    options.print_warnings = false;
    const ReportModel model = build_report_model(files, options);
    KcidbOptions o;
    o.origin = origin;
    o.judged = !baseline.empty();
    o.target_mde_pct = target_mde;
    std::cout << find_output(format, OutputUse::export_).exported(files, model, o).dump(2) << "\n"
              << std::flush;
    return kExitOk;
}

}  // namespace contest
