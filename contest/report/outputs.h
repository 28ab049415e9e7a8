#pragma once
// Everything contest renders for a reader, in one table: each output is its
// name (a format: text, json, html, ...), what it renders, and how it
// renders each use that offers it (null where a use does not): `contest
// report --format`, `contest compare --format`, `contest post --style`,
// `contest export --format`, `contest run --summary-json`, `contest latency
// --format`, `contest load --format` (a load's work), `contest history
// page`, and in text alone `contest loads`' list, contest history's
// list, show, changes, triage and hosts, the bisection's answer (contest
// bisect, contest post of its folder, the track's mail), the track's status
// and its mail, and where a --boot run stands (contest run --boot-status).
// The commands' checks, their --help, the manual and the shell completion
// all read the names from this table.
//
// A use is a model in and text out per format: to render a new table a
// person reads (a command's list, status or mail) through it, (1) put its
// model in a plain struct of report/ (report/ includes no history/, track/,
// bisect/ or boot/: the command fills the struct, as cmd_history.cpp fills
// TrendPage and cli/history_models.cpp the history's tables; or a layer
// that stands on report/ and owns the facts does, as bisect/bisection_text.cpp
// fills the bisection's answer, track/ its status and mail, and the reboot
// place its status), (2) add an OutputUse and its row in outputs.cpp's kUses
// (the command and option that choose the format; none where text is all it
// offers), (3) add a field here, `std::string (*use)(const Model&)`, set in
// the row of each format that renders it, and its case in offered_by, (4)
// render with find_output(format, use).use(model).
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/report_model.h"
#include "contest/report/bisection_text.h"
#include "contest/report/boot_status_text.h"
#include "contest/report/history_text.h"
#include "contest/report/history_triage_text.h"
#include "contest/report/kcidb_export.h"
#include "contest/report/latency_window.h"
#include "contest/report/loads_text.h"
#include "contest/report/report_options.h"
#include "contest/report/track_mail_text.h"
#include "contest/report/track_status_text.h"
#include "contest/report/trend_page.h"
#include "contest/result/result_file.h"

namespace contest {

// Where an output is offered: each command and the option that names it.
enum class OutputUse {
    report,
    compare,
    post,
    export_,
    run_summary,
    latency,
    trend,
    history_list,
    history_show,
    history_changes,
    history_triage,
    history_hosts,
    bisection,
    track_status,
    track_mail,
    boot_status,
    loads_list,
    load_work,
};

struct Output {
    std::string_view name;
    std::string_view what;  // what it renders, one line for --help and the manual
    // contest report: every label, one block per load.
    std::string (*report)(const ReportModel& model, const ReportOptions& options) = nullptr;
    // contest compare: the model holds exactly two labels, the baseline first.
    std::string (*compare)(const ReportModel& model) = nullptr;
    // contest post: a mail body of the files, every label judged against the
    // baseline.
    std::string (*post)(const std::vector<ResultFile>& files,
                        const ReportOptions& options) = nullptr;
    // contest export: a submission to another system.
    nlohmann::ordered_json (*exported)(const std::vector<ResultFile>& files,
                                       const ReportModel& model,
                                       const KcidbOptions& options) = nullptr;
    // contest run --summary-json: one label's run for an engine (Ansible, LAVA, CI).
    nlohmann::json (*run_summary)(const ResultFile& result,
                                  const std::filesystem::path& result_file) = nullptr;
    // contest latency: one probe's window.
    std::string (*latency)(const LatencyWindowModel& window) = nullptr;
    // contest history page: the series' charts and their changes.
    std::string (*trend)(const TrendPage& page) = nullptr;
    // contest history list: the series.
    std::string (*history_list)(const HistorySeriesList& list) = nullptr;
    // contest history show: one series' points.
    std::string (*history_show)(const HistorySeriesPoints& points) = nullptr;
    // contest history changes: the changes found, as alerts.
    std::string (*history_changes)(const HistoryChanges& changes) = nullptr;
    // contest history triage: a change and its settings, or the one made.
    std::string (*history_triage)(const HistoryTriage& triage) = nullptr;
    // contest history hosts: the lab's hosts.
    std::string (*history_hosts)(const HistoryHosts& hosts) = nullptr;
    // contest bisect: its answer and evidence (also contest post of its
    // folder and the track's mail), or a batch started across reboots.
    std::string (*bisection)(const BisectionAnswer& answer) = nullptr;
    // contest track --status: where the track stands.
    std::string (*track_status)(const TrackStatus& status) = nullptr;
    // contest track: a confirmed and bisected change's mail.
    std::string (*track_mail)(const TrackMail& mail) = nullptr;
    // contest run --boot-status: where the --boot run in a folder stands.
    std::string (*boot_status)(const BootStatus& status) = nullptr;
    // contest loads: every load, its sets, unit and options.
    std::string (*loads_list)(const LoadList& list) = nullptr;
    // contest load: one load's work over its window.
    std::string (*load_work)(const LoadWork& work) = nullptr;

    bool offered_by(OutputUse use) const;
};

// In the order --help names them; the first a use offers is its default.
std::span<const Output> outputs();

// The output called `name` that `use` offers; a UsageError naming the
// command's option and the names there are otherwise (and, for a name
// another command offers, which).
const Output& find_output(const std::string& name, OutputUse use);

// "text, markdown, csv or json": the names `use` offers, as help and errors
// name them (separator and last separator as given).
std::string output_names(OutputUse use, std::string_view separator = ", ",
                         std::string_view last_separator = " or ");

// "NAME: WHAT; NAME: WHAT": what each output `use` offers renders, for its
// option's help.
std::string outputs_help(OutputUse use);

// Where an output is offered, for the manual: "contest report --format,
// contest compare --format".
std::string offered_where(const Output& o);

// The option of a use ("--format", "--style", "--summary-json").
std::string_view output_option(OutputUse use);

// The comparison in the output called `format`; anything else is a
// UsageError.
std::string format_compare(const ReportModel& model, const std::string& format = "text");

}  // namespace contest
