#include "contest/cli/history_text.h"

#include <set>

#include "contest/analysis/stats.h"
#include "contest/history/pg_uri.h"
#include "contest/report/formats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"

namespace contest {

using namespace contest::history;

namespace {

// A suggested command's line: its words quoted for a shell, so a label or a
// tree path from any host of a shared database pastes back as that word and
// nothing else (no `;`, `$(...)` or quote of it does anything).
std::string command_line(const std::vector<std::string>& words) {
    return "    " + join(words, " ", [](const std::string& w) { return shell_quoted(w); }) + "\n";
}

// The commands that look at a change closer: compare of the two kernels'
// labels, and bisect between their commits where both are builds of one tree,
// its batches kept in the database read here (--db as given, a password in
// the URI left out).
std::string next_steps(const AlertCommands& a, const KernelPoint& before,
                       const KernelPoint& after) {
    std::string out;
    if (!before.labels.empty() && !after.labels.empty()) {
        std::vector<std::string> words = {"contest", "compare"};
        if (a.results_dir != "results") words.insert(words.end(), {"--results", a.results_dir});
        words.insert(words.end(), {before.labels.front(), after.labels.front()});
        out += command_line(words);
    }
    if (!before.commit.empty() && !after.commit.empty() && before.tree == after.tree &&
        before.commit != after.commit) {
        std::vector<std::string> words = {"contest", "bisect",
                                          "--good",  before.tree + "@" + before.commit,
                                          "--bad",   after.tree + "@" + after.commit,
                                          "--"};
        if (!a.db.empty())
            words.insert(words.end(),
                         {"--db", is_postgresql_uri(a.db) ? without_password(a.db) : a.db});
        words.push_back("LOADS...");
        out += command_line(words);
    }
    return out;
}

// What a group spans: "2 measures, 5 loads, 1 host".
std::string group_span(const ChangeGroup& g) {
    std::set<std::string> measures, loads, hosts;
    for (const auto& c : g.changes) {
        measures.insert(c.series.measure);
        loads.insert(c.series.load);
        hosts.insert(c.machine);
    }
    const auto n = [](std::size_t k, const char* one, const char* many) {
        return std::to_string(k) + " " + (k == 1 ? one : many);
    };
    return n(g.changes.size(), "change", "changes") + " (" +
           n(measures.size(), "measure", "measures") + ", " + n(loads.size(), "load", "loads") +
           ", " + n(hosts.size(), "host", "hosts") + ")";
}

// One change's lines in its alert.
std::string change_text(const RecordedChange& r, const LookedChange& l,
                        const ChangePointOptions& options, PointsBy by) {
    const ChangePoint& c = l.change;
    std::string out = "  " + (r.id > 0 ? "#" + std::to_string(r.id) + " " : std::string()) + "[" +
                      triage_status_name(r.status) + "] " + printable(l.key.text()) + ": " +
                      signed_percent(100 * c.change) + " (" + number_text(100 * options.level) +
                      "%: " + signed_percent(100 * c.low) + " to " + signed_percent(100 * c.high) +
                      "), p " + format_p(c.p) + " over " + std::to_string(l.points) +
                      points_word(by) + " (" + kernel_order_name(l.order) + "), between " +
                      printable(kernel_name(l.before, by)) + " (the last of " +
                      std::to_string(c.before) + ") and " + printable(kernel_name(l.after, by)) +
                      " (the first of " + std::to_string(c.after) + ")\n";
    if (r.back_after)
        out += "    back: a regression after #" + std::to_string(r.back_after) +
               ", marked fixed, of the same series\n";
    if (r.status != TriageStatus::untriaged)
        out += "    " + std::string(triage_status_name(r.status)) + " by " + printable(r.by) + " " +
               printable(r.at) + (r.of ? " (downstream of #" + std::to_string(r.of) + ")" : "") +
               (r.bug.empty() ? "" : " " + printable(r.bug)) +
               (r.note.empty() ? "" : ": " + printable(r.note)) + "\n";
    return out;
}

}  // namespace

std::string kernel_name(const KernelPoint& p, PointsBy by) {
    std::string name = p.release.empty() ? "?" : p.release;
    if (!p.commit.empty()) name += " @" + p.commit.substr(0, 12);
    if (by == PointsBy::file) name += " " + p.first_run_at;
    return name;
}

const char* points_word(PointsBy by) {
    return by == PointsBy::file ? " files" : " kernels";
}

std::string series_list_text(const std::vector<SeriesInfo>& series) {
    if (series.empty()) return "";
    const auto row = [](const std::string& key, const std::string& kernels, const std::string& runs,
                        const std::string& where) {
        return left_aligned(key, 40) + " " + right_aligned(kernels, 7) + " " +
               right_aligned(runs, 5) + "  " + where + "\n";
    };
    std::string out = row("series", "kernels", "runs", "machine, workload");
    for (const auto& s : series)
        out += row(printable(s.key.text()), std::to_string(s.kernels), std::to_string(s.runs),
                   printable(s.machine) + ", " + printable(s.workload));
    return out;
}

std::string series_points_text(const SeriesKey& key, const SeriesPoints& s, PointsBy by) {
    std::string out = printable(key.text()) + ": " + printable(s.info.machine) + ", " +
                      printable(s.info.workload) + "; " + std::to_string(s.points.size()) +
                      points_word(by) + " in " + kernel_order_name(s.order) + "\n";
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
        out += row(printable(kernel_name(p, by)), std::to_string(v.n), four_digits(v.median),
                   four_digits(v.min), four_digits(v.max), printable(join(p.labels, ",")));
    }
    return out;
}

std::string alerts_text(const std::vector<ChangeGroup>& groups,
                        const std::map<long long, const LookedChange*>& by_id,
                        const ChangePointOptions& options, PointsBy by,
                        const AlertCommands& commands) {
    std::string out;
    std::size_t number = 0;
    for (const ChangeGroup& g : groups) {
        out += "alert " + std::to_string(++number) + ", " + triage_status_name(g.status) + ": " +
               printable(g.before_name) + " to " + printable(g.after_name) + ", " + group_span(g) +
               "\n";
        for (const RecordedChange& r : g.changes)
            out += change_text(r, *by_id.at(r.id), options, by);
        const LookedChange& first = *by_id.at(g.changes.front().id);
        out += next_steps(commands, first.before, first.after);
    }
    return out;
}

}  // namespace contest
