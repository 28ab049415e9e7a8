#include "contest/cli/history_triage.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "contest/history/hosts.h"
#include "contest/history/owed_saves.h"
#include "contest/history/triage.h"
#include "contest/report/outputs.h"
#include "contest/sys/errors.h"
#include "contest/sys/host_name.h"
#include "contest/sys/text.h"
#include "contest/sys/utc_timestamp.h"

namespace contest {

using namespace contest::history;

namespace {

long long change_word(const std::string& word, const char* what) {
    const auto id = parse_change_id(word);
    if (!id)
        throw UsageError(std::string("contest history triage: ") + what + " '" + printable(word) +
                         "' is not a change's id (a number, as contest history changes prints it)");
    return *id;
}

// The change as its triage says it: its state, series, machine, move and
// kernels; the setting's who and when.
HistoryTriage triage_model(const RecordedChange& c) {
    return {.id = c.id,
            .status = triage_status_name(c.status),
            .series = c.series.text(),
            .machine = c.machine,
            .moved = c.moved,
            .before = c.before_name,
            .after = c.after_name,
            .by = c.by,
            .at = c.at,
            .settings = {}};
}

}  // namespace

std::string who_triages(const std::string& by) {
    if (!by.empty()) return by;
    const char* user = std::getenv("USER");
    std::string name = user && *user ? user : login_name();
    if (const std::string host = host_name(); !host.empty()) name += "@" + host;
    return name;
}

int history_triage(HistoryDb& db, const std::vector<std::string>& words, const TriageWords& t) {
    if (words.size() != 1)
        throw UsageError(
            "contest history triage: give one change's id (contest history changes prints them)");
    const long long id = change_word(words.front(), "CHANGE");
    if (t.status.empty()) {
        if (!t.note.empty() || !t.bug.empty() || !t.of.empty())
            throw UsageError("contest history triage: --note, --bug and --of go with --status");
        HistoryTriage shown = triage_model(recorded_change(db, id));
        for (const TriageEntry& e : triage_history(db, id))
            shown.settings.push_back(
                {e.at, triage_status_name(e.status), e.by, e.of, e.bug, e.note});
        std::cout << find_output("text", OutputUse::history_triage).history_triage(shown);
        return kExitOk;
    }
    TriageRequest r;
    r.change = id;
    const auto status = parse_triage_status(t.status);
    if (!status)
        throw UsageError("contest history triage: --status '" + printable(t.status) +
                         "': expected one of " + triage_status_names());
    r.status = *status;
    r.note = t.note;
    r.bug = t.bug;
    r.by = who_triages(t.by);
    if (!t.of.empty()) r.of = change_word(t.of, "--of");
    HistoryTriage set = triage_model(triage_change(db, r, utc_timestamp()));
    set.set = true;
    std::cout << find_output("text", OutputUse::history_triage).history_triage(set);
    return kExitOk;
}

int history_hosts(HistoryDb& db, const std::filesystem::path& results_dir) {
    HistoryHosts hosts{.database = db.target().shown, .hosts = {}, .results = results_dir.string()};
    for (const HostView& h : host_views(db))
        hosts.hosts.push_back({.name = h.name,
                               .last_started_at = h.last_started_at,
                               .files = h.files,
                               .runs = h.ok_runs + h.failed_runs,
                               .failed_runs = h.failed_runs,
                               .last_kernel = h.last_kernel,
                               .last_label = h.last_label,
                               .series = h.series,
                               .loads = h.loads,
                               .labels = h.labels,
                               .trees = h.trees,
                               .last_failure = h.last_failure});
    // Saves a host could not make are on the host's own list (owed_saves.h):
    // this machine's is read.
    hosts.owed = owed_saves(results_dir, db.target().shown).size();
    std::cout << find_output("text", OutputUse::history_hosts).history_hosts(hosts);
    return kExitOk;
}

}  // namespace contest
