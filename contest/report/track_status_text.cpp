// Where a track stands, as text: its points and their runs, its changes and
// what became of each, and its mails.
#include "contest/report/track_status_text.h"

#include "contest/report/formats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

std::string track_status_text(const TrackStatus& s) {
    std::string out = "track of " + printable(s.tree) + " " + printable(s.branch) + " from " +
                      s.from + ", every " + printable(s.every) + (s.head ? " and its head" : "") +
                      ", on " + printable(s.measure) + "\n";
    out += s.holder ? "taken now by pid " + std::to_string(s.holder) + "\n" : "not running now\n";
    out += "points: " + std::to_string(s.points.size()) + ", " + std::to_string(s.stored) +
           " stored, " + std::to_string(s.failed) + " failed, " + std::to_string(s.to_do) +
           " to do";
    // A point measured and not stored is owed to the database (a server
    // away when it was measured): the track's next start stores it.
    if (s.owed > 0)
        out += " (" + std::to_string(s.owed) + " measured, owed to the database: the next start " +
               "stores them)";
    if (s.stored && s.to_do) {
        const double each = s.stored_seconds / static_cast<double>(s.stored);
        out += " (about " + seconds_text(each * static_cast<double>(s.to_do)) + " left at " +
               seconds_text(each) + " a point)";
    }
    out += "\n";
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const TrackStatusPoint& p = s.points[i];
        out += "  " + std::to_string(i + 1) + ". " + printable(p.name) + " " + p.commit + ": " +
               p.status;
        if (p.seconds) out += ", " + seconds_text(*p.seconds);
        if (p.attempts > 1) out += ", " + std::to_string(p.attempts) + " runs started";
        if (!p.why.empty()) out += ": " + printable(p.why);
        out += "\n";
    }
    out += "changes: " + std::to_string(s.changes.size()) + "\n";
    for (const auto& c : s.changes) {
        out += "  " + printable(c.series) + " " + signed_percent(100 * c.change) + " between " +
               c.before + " and " + c.after + ": " + c.status;
        if (!c.first_bad.empty())
            out += ", first bad commit " + c.first_bad + " " + printable(c.first_bad_subject);
        if (c.bisecting)
            out += " (its state: " + printable(c.bisect_folder) + ", contest post shows it)";
        if (!c.mail.empty()) out += ", mail " + printable(c.mail);
        if (!c.why.empty()) out += ": " + printable(c.why);
        if (c.not_confirmed) out += ": " + printable(c.confirm_why);
        out += "\n";
    }
    out += "mails: " + std::to_string(s.mails) + "\n";
    return out;
}

}  // namespace contest
