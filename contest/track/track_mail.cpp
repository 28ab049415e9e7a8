#include "contest/track/track_mail.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "contest/bisect/bisect_measure.h"
#include "contest/bisect/bisection_text.h"
#include "contest/report/format_post.h"
#include "contest/report/formats.h"
#include "contest/report/post_lkp.h"
#include "contest/report/post_parts.h"
#include "contest/sys/mail_header.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"
#include "contest/track/track_bench.h"

namespace contest::track {

namespace {

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f%%", 100 * fraction);
    return text;
}

std::string point_name(const TrackState& state, const std::string& commit) {
    for (const auto& p : state.points)
        if (p.commit == commit)
            return p.name == commit.substr(0, 12) ? p.name
                                                  : p.name + " (" + commit.substr(0, 12) + ")";
    return commit.substr(0, 12);
}

// format_post's mail without its Subject and signature: its body.
std::string post_body(const std::string& mail) {
    std::string body = mail;
    if (body.rfind("Subject:", 0) == 0) {
        const auto blank = body.find("\n\n");
        body = blank == std::string::npos ? "" : body.substr(blank + 2);
    }
    const auto signature = body.rfind("\n-- \n");
    if (signature != std::string::npos) body.resize(signature + 1);
    return body;
}

// Where the series showed the change: between this pair, or (a neighbour)
// between another pair, which its confirmation could not tell apart.
std::string where_found(const TrackState& state, const TrackChange& change) {
    const std::string moved = "the series " + change.series + " moved " + percent(change.change) +
                              " (p " + format_p(change.p) + ") ";
    if (change.neighbour_of.empty())
        return moved + "between " + point_name(state, change.before) + " and " +
               point_name(state, change.after) + ", the points around it";
    const auto dots = change.neighbour_of.find("..");
    const std::string a = change.neighbour_of.substr(0, dots),
                      b = dots == std::string::npos ? "" : change.neighbour_of.substr(dots + 2);
    return moved + "at the split between " + point_name(state, a) + " and " + point_name(state, b) +
           ", whose confirmation could not tell them apart (one of them measured on another "
           "day's footing); the change lies between the next pair, " +
           point_name(state, change.before) + " and " + point_name(state, change.after);
}

// The measure the track follows, WHAT:LOAD as the state keeps it.
bisect::BisectMeasure followed_measure(const TrackState& state) {
    const auto colon = state.measure.find(':');
    return {state.measure.substr(0, colon),
            colon == std::string::npos ? "" : state.measure.substr(colon + 1)};
}

// The confirmation's figures of the measure: each side's mean over the
// rounds of both (every part's), and the change between them.
struct Confirmed {
    unsigned rounds = 0;
    double before = 0, after = 0;
    std::optional<double> change;  // after / before - 1; none from a zero
};

Confirmed confirmed_figures(const std::vector<ResultFile>& compared,
                            const bisect::BisectMeasure& m) {
    // Each part's rounds: its before's and after's files, in its folder.
    std::vector<EndsRound> rounds;
    for (const auto& before : compared) {
        if (before.label != kBeforeLabel) continue;
        for (const auto& after : compared) {
            if (after.label != kAfterLabel || after.path.parent_path() != before.path.parent_path())
                continue;
            unsigned incomplete = 0;
            for (const auto& r : bisect::ends_rounds(before, after, m, incomplete))
                rounds.push_back(r);
        }
    }
    Confirmed c;
    for (const auto& r : rounds) {
        c.before += r.good;
        c.after += r.bad;
    }
    c.rounds = static_cast<unsigned>(rounds.size());
    if (c.rounds == 0) return c;
    c.before /= c.rounds;
    c.after /= c.rounds;
    if (c.before != 0) c.change = c.after / c.before - 1;
    return c;
}

// The table's row of the measure: time_s, ratio, loads; "" for a measure
// that has rows of its own (a latency probe's).
std::string row_of(const bisect::BisectMeasure& m) {
    if (m.what == "time") return "time_s";
    if (m.what == "ratio" || m.what == "loads") return m.what;
    return "";
}

// Every figure the mail gives of the measure, each named: the
// confirmation's (the figure of record), the series', the bisection's ends'.
std::string figures_named(const TrackState& state, const TrackChange& change,
                          const bisect::BisectState& bisection, const Confirmed& c,
                          const std::string& unit) {
    std::string out = "The change of " + state.measure + ", each figure named:\n";
    out += "- the confirmation's, the figure of record";
    if (c.change)
        out += ": " + percent(*c.change) + " (" + six_digits(c.before) + " -> " +
               six_digits(c.after) + unit + ", each the mean of the " + std::to_string(c.rounds) +
               " interleaved rounds of the two measured again together)";
    out += "; its test: " + change.confirm_why + "\n";
    out += "- the series': " + where_found(state, change) + "\n";
    if (bisection.ends_rounds > 0)
        out += "- the bisection's ends' (its own measuring, below): bad - good = " +
               six_digits(bisection.shift) + unit + " over " +
               std::to_string(bisection.ends_rounds) + " rounds\n";
    return out;
}

}  // namespace

std::string mail_file_name(const std::string& first_bad, const std::string& measure) {
    std::string name = "track-" + first_bad.substr(0, 12) + "-" + measure + ".mail";
    for (char& c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            c = '_';
    return name;
}

std::string track_mail(const TrackState& state, const TrackChange& change,
                       const bisect::BisectState& bisection,
                       const std::vector<ResultFile>& compared,
                       const std::vector<std::string>& other_hosts,
                       const std::vector<std::string>& group) {
    const bisect::BisectMeasure measure = followed_measure(state);
    const std::string unit = bisect::unit_of(measure);
    const Confirmed confirmed = confirmed_figures(compared, measure);
    // One figure of the change throughout: the confirmation's, which the
    // mail is written on; the series' where it has none.
    const std::string of_record = percent(confirmed.change.value_or(change.change));
    const std::string subject = "[contest] track: " + bisect::short_hash(bisection.first_bad) +
                                " " + printable(bisection.first_bad_subject) + ": " +
                                printable(state.measure) + " " + of_record;
    // The robot's lead: the change, the commit, its author, the tree.
    std::string body =
        "contest track noticed a " + of_record + " change of " + state.measure +
        " (its confirmation's figure) due to commit:\n\ncommit: " + bisection.first_bad +
        "\n  (\"" + bisection.first_bad_subject + "\")\nauthor: " + bisection.first_bad_author +
        "\nin: " + state.tree + " " + state.branch + ", tracked every " +
        (state.every == "tag" ? std::string("tag") : state.every + " commits") + " from " +
        state.from.substr(0, 12) + "\n\n" +
        figures_named(state, change, bisection, confirmed, unit);
    if (!other_hosts.empty()) {
        body += "\nThe database's other hosts (the same workload, load and measure):\n";
        for (const auto& line : other_hosts) body += line + "\n";
    }
    if (!group.empty()) {
        body += "\nIts alert (the database's changes between the same two kernels):\n";
        for (const auto& line : group) body += "  " + line + "\n";
    }
    body += "\nThe bisection between them:\n" + bisect::bisection_text(bisection);
    if (compared.size() >= 2) {
        ReportOptions options;
        options.baseline = compared.front().label;
        options.print_warnings = false;
        // The table's mark of the measure and its verdict are the
        // confirmation's test (a mail is written only for a change it
        // confirmed), Time's beside it.
        FollowedMeasure followed;
        followed.name = state.measure;
        followed.load = measure.load;
        followed.row = row_of(measure);
        followed.differ = true;
        followed.change = of_record;
        followed.test = "the confirmation's: " + change.confirm_why;
        body +=
            "\nThe two points, before and after, as their confirmation measured them (every "
            "part's rounds):\n\n" +
            post_body(post_lkp_followed(compared, options, followed));
    }
    std::vector<std::string> words = {"contest", "track",    state.tree, "--branch", state.branch,
                                      "--from",  state.from, "--every",  state.every};
    if (state.head) words.push_back("--head");
    words.insert(words.end(), {"--measure", state.measure, "--"});
    for (const auto& w : state.run_words) words.push_back(w);
    std::vector<std::string> quoted;
    for (const auto& w : words) quoted.push_back(shell_quoted(w));
    body += "\nHow the track runs:\n" + post_command_lines(quoted);
    // The Subject folded at its spaces where it is ASCII, encoded-words
    // (folded by mail_header) where not; the body UTF-8, said so.
    const std::string header = mail_header("Subject", subject);
    return (header.find("=?UTF-8?") == std::string::npos ? post_lines(header, false) : header) +
           kPlainUtf8MailHeaders + "\n" + post_lines(body, false) + post_signature();
}

}  // namespace contest::track
