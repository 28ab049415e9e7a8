// contest history triage's and hosts' text: a change and its settings, or
// the setting made; a line a host (its name last: a machine's name says its
// CPUs and guests, long), what it runs on the line below, and the saves
// this machine owes.
#include "contest/report/history_triage_text.h"

#include <algorithm>
#include <cstdio>

#include "contest/report/formats.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

std::string setting_text(const HistoryTriageSetting& e) {
    std::string out = "  " + printable(e.at) + " " + e.status + " by " + printable(e.by);
    if (e.of) out += " (downstream of #" + std::to_string(e.of) + ")";
    if (!e.bug.empty()) out += " " + printable(e.bug);
    if (!e.note.empty()) out += ": " + printable(e.note);
    return out + "\n";
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

// printf's line into a string: the table's columns are padded by bytes.
template <typename... Args>
std::string line_of(const char* format, Args... args) {
    const int n = std::snprintf(nullptr, 0, format, args...);
    std::string out(static_cast<std::size_t>(n) + 1, '\0');
    std::snprintf(out.data(), out.size(), format, args...);
    out.resize(static_cast<std::size_t>(n));
    return out;
}

}  // namespace

std::string history_triage_text(const HistoryTriage& t) {
    if (t.set)
        return "#" + std::to_string(t.id) + " " + printable(t.series) + " between " +
               printable(t.before) + " and " + printable(t.after) + ": " + t.status + " (by " +
               printable(t.by) + ", " + t.at + ")\n";
    std::string out = "#" + std::to_string(t.id) + " " + t.status + " " + printable(t.series) +
                      " (" + printable(t.machine) + "): " + signed_percent(100 * t.moved) +
                      " between " + printable(t.before) + " and " + printable(t.after) + "\n";
    for (const HistoryTriageSetting& e : t.settings) out += setting_text(e);
    return out;
}

std::string history_hosts_text(const HistoryHosts& h) {
    std::string out;
    if (h.hosts.empty())
        out += "no host in " + h.database + "\n";
    else
        out += line_of("%-20s %5s %6s %6s  %s\n", "last run started", "files", "runs", "failed",
                       "host");
    for (const HistoryHostRow& r : h.hosts) {
        out += line_of("%-20s %5lld %6lld %6lld  %s\n", printable(r.last_started_at).c_str(),
                       r.files, r.runs, r.failed_runs, printable(r.name).c_str());
        out += "    last kernel " + printable(r.last_kernel) + " (" + printable(r.last_label) +
               "); " + std::to_string(r.series) + " series; loads " + first_few(r.loads) +
               "; labels " + first_few(r.labels) + "; trees " + first_few(r.trees, 2) + "\n";
        if (!r.last_failure.empty())
            out += "    its last failed run: " + printable(r.last_failure) + "\n";
    }
    // Saves a host could not make are what the database cannot know: they
    // are on the host's own list. This machine's is read; a host that
    // stopped reaching the database shows as its old last run.
    out +=
        "this machine's " + printable(h.results) + " owes " +
        (h.owed == 0 ? std::string("nothing")
                     : std::to_string(h.owed) + " save(s) (contest history sync brings them in)") +
        " to " + h.database + "\n";
    return out;
}

}  // namespace contest
