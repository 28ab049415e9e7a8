// The track's mail as text: the robot's Subject and lead, every figure of
// the change each named, the bisection's evidence, the two points' table
// and the track's command, folded to the post's columns.
#include "contest/report/track_mail_text.h"

#include <cstdio>

#include "contest/report/format_post.h"
#include "contest/report/formats.h"
#include "contest/report/post_lkp.h"
#include "contest/report/post_parts.h"
#include "contest/sys/mail_header.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"

namespace contest {

namespace {

std::string percent(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f%%", 100 * fraction);
    return text;
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
std::string where_found(const TrackMail& m) {
    const std::string moved = "the series " + m.series + " moved " + percent(m.series_change) +
                              " (p " + format_p(m.p) + ") ";
    if (!m.neighbour)
        return moved + "between " + m.before + " and " + m.after + ", the points around it";
    return moved + "at the split between " + m.split_before + " and " + m.split_after +
           ", whose confirmation could not tell them apart (one of them measured on another "
           "day's footing); the change lies between the next pair, " +
           m.before + " and " + m.after;
}

// Every figure the mail gives of the measure, each named: the
// confirmation's (the figure of record), the series', the bisection's ends'.
std::string figures_named(const TrackMail& m) {
    std::string out = "The change of " + m.measure + ", each figure named:\n";
    out += "- the confirmation's, the figure of record";
    if (const auto& c = m.confirmed)
        out += ": " + percent(c->change) + " (" + six_digits(c->before) + " -> " +
               six_digits(c->after) + m.unit + ", each the mean of the " +
               std::to_string(c->rounds) +
               " interleaved rounds of the two measured again together)";
    out += "; its test: " + m.confirm_why + "\n";
    out += "- the series': " + where_found(m) + "\n";
    if (m.ends_rounds > 0)
        out += "- the bisection's ends' (its own measuring, below): bad - good = " +
               six_digits(m.shift) + m.unit + " over " + std::to_string(m.ends_rounds) +
               " rounds\n";
    return out;
}

}  // namespace

std::string track_mail_text(const TrackMail& m) {
    // One figure of the change throughout: the confirmation's, which the
    // mail is written on; the series' where it has none.
    const std::string of_record = percent(m.change);
    const BisectionAnswer& b = m.bisection;
    const std::string subject = "[contest] track: " + b.first_bad.substr(0, 12) + " " +
                                printable(b.first_bad_subject) + ": " + printable(m.measure) + " " +
                                of_record;
    // The robot's lead: the change, the commit, its author, the tree.
    std::string body = "contest track noticed a " + of_record + " change of " + m.measure +
                       " (its confirmation's figure) due to commit:\n\ncommit: " + b.first_bad +
                       "\n  (\"" + b.first_bad_subject + "\")\nauthor: " + b.first_bad_author +
                       "\nin: " + m.tree + " " + m.branch + ", tracked every " +
                       (m.every == "tag" ? std::string("tag") : m.every + " commits") + " from " +
                       m.from + "\n\n" + figures_named(m);
    if (!m.other_hosts.empty()) {
        body += "\nThe database's other hosts (the same workload, load and measure):\n";
        for (const auto& line : m.other_hosts) body += line + "\n";
    }
    if (!m.group.empty()) {
        body += "\nIts alert (the database's changes between the same two kernels):\n";
        for (const auto& line : m.group) body += "  " + line + "\n";
    }
    body += "\nThe bisection between them:\n" + bisection_answer_text(b);
    if (m.compared.size() >= 2) {
        ReportOptions options;
        options.baseline = m.compared.front().label;
        options.print_warnings = false;
        // The table's mark of the measure and its verdict are the
        // confirmation's test (a mail is written only for a change it
        // confirmed), Time's beside it.
        FollowedMeasure followed;
        followed.name = m.measure;
        followed.load = m.load;
        followed.row = m.row;
        followed.differ = true;
        followed.change = of_record;
        followed.test = "the confirmation's: " + m.confirm_why;
        body +=
            "\nThe two points, before and after, as their confirmation measured them (every "
            "part's rounds):\n\n" +
            post_body(post_lkp_followed(m.compared, options, followed));
    }
    std::vector<std::string> quoted;
    for (const auto& w : m.command) quoted.push_back(shell_quoted(w));
    body += "\nHow the track runs:\n" + post_command_lines(quoted);
    // The Subject folded at its spaces where it is ASCII, encoded-words
    // (folded by mail_header) where not; the body UTF-8, said so.
    const std::string header = mail_header("Subject", subject);
    return (header.find("=?UTF-8?") == std::string::npos ? post_lines(header, false) : header) +
           kPlainUtf8MailHeaders + "\n" + post_lines(body, false) + post_signature();
}

}  // namespace contest
