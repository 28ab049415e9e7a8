#include "contest/cli/history_triage.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "contest/history/hosts.h"
#include "contest/history/owed_saves.h"
#include "contest/history/triage.h"
#include "contest/report/formats.h"
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

void print_entry(const TriageEntry& e) {
    std::cout << "  " << printable(e.at) << " " << triage_status_name(e.status) << " by "
              << printable(e.by);
    if (e.of) std::cout << " (downstream of #" << e.of << ")";
    if (!e.bug.empty()) std::cout << " " << printable(e.bug);
    if (!e.note.empty()) std::cout << ": " << printable(e.note);
    std::cout << "\n";
}

// A list cut to its first few, for one line of the table.
std::string first_few(const std::vector<std::string>& items, std::size_t few = 3) {
    if (items.empty()) return "-";
    std::vector<std::string> shown(items.begin(),
                                   items.begin() + static_cast<long>(std::min(few, items.size())));
    std::string text = join(shown, ", ");
    if (items.size() > few) text += " and " + std::to_string(items.size() - few) + " more";
    return printable(text);
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
        const RecordedChange c = recorded_change(db, id);
        std::cout << "#" << c.id << " " << triage_status_name(c.status) << " "
                  << printable(c.series.text()) << " (" << printable(c.machine)
                  << "): " << signed_percent(100 * c.moved) << " between "
                  << printable(c.before_name) << " and " << printable(c.after_name) << "\n";
        for (const TriageEntry& e : triage_history(db, id)) print_entry(e);
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
    const RecordedChange c = triage_change(db, r, utc_timestamp());
    std::cout << "#" << c.id << " " << printable(c.series.text()) << " between "
              << printable(c.before_name) << " and " << printable(c.after_name) << ": "
              << triage_status_name(c.status) << " (by " << printable(c.by) << ", " << c.at
              << ")\n";
    return kExitOk;
}

int history_hosts(HistoryDb& db, const std::filesystem::path& results_dir) {
    const std::vector<HostView> hosts = host_views(db);
    if (hosts.empty()) std::cout << "no host in " << db.target().shown << "\n";
    // A line a host, its name last (a machine's name says its CPUs and
    // guests: long), what it runs on the line below.
    if (!hosts.empty())
        std::printf("%-20s %5s %6s %6s  %s\n", "last run started", "files", "runs", "failed",
                    "host");
    for (const HostView& h : hosts) {
        std::printf("%-20s %5lld %6lld %6lld  %s\n", printable(h.last_started_at).c_str(), h.files,
                    h.ok_runs + h.failed_runs, h.failed_runs, printable(h.name).c_str());
        std::cout << "    last kernel " << printable(h.last_kernel) << " ("
                  << printable(h.last_label) << "); " << h.series << " series; loads "
                  << first_few(h.loads) << "; labels " << first_few(h.labels) << "; trees "
                  << first_few(h.trees, 2) << "\n";
        if (!h.last_failure.empty())
            std::cout << "    its last failed run: " << printable(h.last_failure) << "\n";
    }
    // Saves a host could not make are what the database cannot know: they
    // are on the host's own list (owed_saves.h). This machine's is read; a
    // host that stopped reaching the database shows as its old last run.
    const std::size_t owed = owed_saves(results_dir, db.target().shown).size();
    std::cout << "this machine's " << printable(results_dir.string()) << " owes "
              << (owed == 0 ? std::string("nothing")
                            : std::to_string(owed) +
                                  " save(s) (contest history sync brings "
                                  "them in)")
              << " to " << db.target().shown << "\n";
    return kExitOk;
}

}  // namespace contest
