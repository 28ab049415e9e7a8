#include "contest/report/history_text.h"

#include "contest/analysis/stats.h"
#include "contest/report/formats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"

namespace contest {

namespace {

// A suggested command's line: its words quoted for a shell, so a label or a
// tree path from any host of a shared database pastes back as that word and
// nothing else (no `;`, `$(...)` or quote of it does anything).
std::string command_line(const std::vector<std::string>& words) {
    return "    " + join(words, " ", [](const std::string& w) { return shell_quoted(w); }) + "\n";
}

// What an alert spans: "2 changes (2 measures, 5 loads, 1 host)".
std::string alert_span(const HistoryAlert& a) {
    const auto n = [](std::size_t k, const char* one, const char* many) {
        return std::to_string(k) + " " + (k == 1 ? one : many);
    };
    return n(a.changes.size(), "change", "changes") + " (" + n(a.measures, "measure", "measures") +
           ", " + n(a.loads, "load", "loads") + ", " + n(a.hosts, "host", "hosts") + ")";
}

// One change's lines in its alert.
std::string change_text(const HistoryAlertChange& r, double level, const std::string& points_word) {
    const ChangePoint& c = r.change;
    std::string out = "  " + (r.id > 0 ? "#" + std::to_string(r.id) + " " : std::string()) + "[" +
                      r.status + "] " + printable(r.series) + ": " +
                      signed_percent(100 * c.change) + " (" + number_text(100 * level) +
                      "%: " + signed_percent(100 * c.low) + " to " + signed_percent(100 * c.high) +
                      "), p " + format_p(c.p) + " over " + std::to_string(r.points) + points_word +
                      " (" + r.order + "), between " + printable(r.before) + " (the last of " +
                      std::to_string(c.before) + ") and " + printable(r.after) + " (the first of " +
                      std::to_string(c.after) + ")\n";
    if (r.back_after)
        out += "    back: a regression after #" + std::to_string(r.back_after) +
               ", marked fixed, of the same series\n";
    if (r.triaged)
        out += "    " + r.status + " by " + printable(r.by) + " " + printable(r.at) +
               (r.of ? " (downstream of #" + std::to_string(r.of) + ")" : "") +
               (r.bug.empty() ? "" : " " + printable(r.bug)) +
               (r.note.empty() ? "" : ": " + printable(r.note)) + "\n";
    return out;
}

}  // namespace

std::string history_series_list_text(const HistorySeriesList& list) {
    if (list.series.empty() && list.hidden == 0) return "no series in " + list.database + "\n";
    const auto row = [](const std::string& key, const std::string& kernels, const std::string& runs,
                        const std::string& where) {
        return left_aligned(key, 40) + " " + right_aligned(kernels, 7) + " " +
               right_aligned(runs, 5) + "  " + where + "\n";
    };
    std::string out;
    // The key's column is 40 cells at least, so a list of Time's series is
    // the start of the list of every measure's.
    if (!list.series.empty()) out = row("series", "kernels", "runs", "machine, workload");
    for (const auto& s : list.series)
        out += row(printable(s.series), std::to_string(s.kernels), std::to_string(s.runs),
                   printable(s.machine) + ", " + printable(s.workload));
    if (list.hidden > 0)
        out += (list.series.empty() ? "no series of Time (wall_s); " : "") +
               std::to_string(list.hidden) +
               " series of other measures (the load's work, latency, ...): "
               "--all-measures lists them, --measure M one measure's\n";
    return out;
}

std::string history_series_points_text(const HistorySeriesPoints& s) {
    std::string out = printable(s.series) + ": " + printable(s.machine) + ", " +
                      printable(s.workload) + "; " + std::to_string(s.points.size()) +
                      s.points_word + " in " + s.order + "\n";
    const auto row = [](const std::string& kernel, const std::string& runs,
                        const std::string& median, const std::string& min, const std::string& max,
                        const std::string& labels) {
        return left_aligned(kernel, 32) + " " + right_aligned(runs, 5) + " " +
               right_aligned(median, 12) + " " + right_aligned(min, 12) + " " +
               right_aligned(max, 12) + "  " + labels + "\n";
    };
    out += row("kernel", "runs", "median", "min", "max", "labels");
    for (const auto& p : s.points) {
        const stats::Summary v = stats::summarize(p.values);
        out += row(printable(p.kernel), std::to_string(v.n), four_digits(v.median),
                   four_digits(v.min), four_digits(v.max), printable(join(p.labels, ",")));
    }
    return out;
}

std::string history_changes_text(const HistoryChanges& h) {
    if (h.found == 0)
        return "no change in " + std::to_string(h.series) + " series (alpha " +
               number_text(h.alpha) + ", at least " + std::to_string(h.min_segment) +
               h.points_word + " a side, at least " + number_text(100 * h.min_change) + "%)\n";
    std::string out;
    std::size_t number = 0;
    for (const HistoryAlert& a : h.alerts) {
        out += "alert " + std::to_string(++number) + ", " + a.status + ": " + printable(a.before) +
               " to " + printable(a.after) + ", " + alert_span(a) + "\n";
        for (const HistoryAlertChange& c : a.changes) out += change_text(c, h.level, h.points_word);
        for (const auto& words : a.commands) out += command_line(words);
    }
    out += std::to_string(h.shown) + " of " + std::to_string(h.found) + " change(s) in " +
           std::to_string(h.alerts.size()) + " alert(s)" +
           (h.only.empty() ? std::string() : ", those " + h.only) +
           "; contest history triage ID --status STATE sets one's state\n";
    return out;
}

}  // namespace contest
