// Where a --boot run stands, as text: a heading line, then its labels,
// turns and boots a line each, indented.
#include "contest/report/boot_status_text.h"

#include <sstream>

#include "contest/sys/text.h"

namespace contest {

std::string boot_status_text(const BootStatus& s) {
    // A stream, as the figures were always written (an uptime's six
    // significant digits).
    std::ostringstream out;
    if (!s.found) {
        out << "no boot run in " << s.results << "\n";
        return out.str();
    }
    out << "boot run " << s.started_at << ": " << s.phase
        << (s.note.empty() ? "" : " (" + printable(s.note) + ")") << "\n"
        << "  method " << s.method << ", " << s.turns.size() << " turns: " << s.taken << " taken, "
        << s.failed << " failed, " << s.turns.size() - s.taken - s.failed << " to go; "
        << s.boots_asked << " boots asked of at most " << s.boot_max << "\n"
        << "  started in " << printable(s.start_release) << " (" << printable(s.start_cmdline)
        << ")\n";
    for (const auto& l : s.labels)
        out << "  " << printable(l.label) << ": " << printable(l.kernel)
            << (l.cmdline.empty() ? "" : "  cmdline: " + printable(l.cmdline)) << "\n";
    for (const auto& t : s.turns)
        out << "  round " << t.round << "  " << printable(t.label) << "  " << t.status << "\n";
    for (const auto& b : s.boots)
        out << "  boot " << printable(b.at) << "  expected " << printable(b.expected) << "  got "
            << printable(b.release) << "  up " << b.up_s << " s  " << printable(b.outcome) << "\n";
    if (s.step > 0) out << "  a step under way: pid " << s.step << "\n";
    if (!s.unit.empty())
        out << "  unit " << s.unit << "\n";
    else if (!s.other_unit.empty())
        out << "  the machine's unit is another run's (" << printable(s.other_unit) << ")\n";
    return out.str();
}

}  // namespace contest
