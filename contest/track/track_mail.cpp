#include "contest/track/track_mail.h"

#include <cmath>
#include <cstdio>

#include "contest/bisect/bisection_text.h"
#include "contest/report/format_post.h"
#include "contest/report/formats.h"
#include "contest/report/post_parts.h"
#include "contest/report/run_facts.h"
#include "contest/sys/text.h"

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
    const std::string moved = "The series " + change.series + " moved " + percent(change.change) +
                              " (p " + format_p(change.p) + ") ";
    if (change.neighbour_of.empty())
        return moved + "between " + point_name(state, change.before) + " and " +
               point_name(state, change.after) + ", the points around it.\n";
    const auto dots = change.neighbour_of.find("..");
    const std::string a = change.neighbour_of.substr(0, dots),
                      b = dots == std::string::npos ? "" : change.neighbour_of.substr(dots + 2);
    return moved + "at the split between " + point_name(state, a) + " and " + point_name(state, b) +
           ", whose confirmation could not tell them apart (one of them measured on another "
           "day's footing); the change lies between the next pair, " +
           point_name(state, change.before) + " and " + point_name(state, change.after) + ".\n";
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
    const std::string subject =
        "Subject: [contest] track: " + bisect::short_hash(bisection.first_bad) + " " +
        printable(bisection.first_bad_subject) + ": " + printable(state.measure) + " " +
        percent(change.change);
    // The robot's lead: the change, the commit, its author, the tree.
    std::string body = "contest track noticed a " + percent(change.change) + " change of " +
                       state.measure + " due to commit:\n\ncommit: " + bisection.first_bad +
                       "\n  (\"" + bisection.first_bad_subject +
                       "\")\nauthor: " + bisection.first_bad_author + "\nin: " + state.tree + " " +
                       state.branch + ", tracked every " +
                       (state.every == "tag" ? std::string("tag") : state.every + " commits") +
                       " from " + state.from.substr(0, 12) + "\n\n" + where_found(state, change) +
                       "Confirmed by the two measured again together, in interleaved rounds: " +
                       change.confirm_why + "\n";
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
        body +=
            "\nThe two points, before and after, as their confirmation measured them (every "
            "part's rounds):\n\n" +
            post_body(format_post(compared, options, PostStyle::lkp));
    }
    std::vector<std::string> words = {"contest", "track",    state.tree, "--branch", state.branch,
                                      "--from",  state.from, "--every",  state.every};
    if (state.head) words.push_back("--head");
    words.insert(words.end(), {"--measure", state.measure, "--"});
    for (const auto& w : state.run_words) words.push_back(w);
    std::vector<std::string> quoted;
    for (const auto& w : words) quoted.push_back(shell_quoted(w));
    body += "\nHow the track runs:\n" + post_command_lines(quoted);
    return post_lines(subject, false) + "\n" + post_lines(body, false) + post_signature();
}

}  // namespace contest::track
