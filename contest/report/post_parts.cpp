#include "contest/report/post_parts.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/report_model.h"
#include "contest/report/formats.h"
#include "contest/report/run_facts.h"
#include "contest/result/result_file.h"
#include "contest/sys/text.h"
#include "contest/sys/version.h"

namespace contest {

namespace {

// `j` with every string in it, keys and values, through printable().
nlohmann::json printable_json(const nlohmann::json& j) {
    if (j.is_string()) return printable(j.get<std::string>());
    if (j.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& item : j) out.push_back(printable_json(item));
        return out;
    }
    if (j.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [key, value] : j.items()) out[printable(key)] = printable_json(value);
        return out;
    }
    return j;
}

// The files with the control characters of every text they hold escaped,
// before any line of the mail is made of it: a line break in a workload's
// kind would otherwise end the Subject and start a header of its own
// ("kernel\nBcc: ..."). Through the file's one field table, so no field is
// left out.
std::vector<ResultFile> with_printable_text(const std::vector<ResultFile>& files) {
    std::vector<ResultFile> out;
    for (const auto& f : files) {
        out.push_back(result_from_json(printable_json(to_json(f)), f.path.string()));
        out.back().path = f.path;
    }
    return out;
}

// The length in bytes of `word`'s longest start that takes at most `cells`
// (at least one code point, so breaking always moves on).
std::size_t fitting_prefix(const std::string& word, std::size_t cells) {
    std::size_t end = 0, fits = 0;
    while (end < word.size()) {
        std::size_t next = end + 1;
        while (next < word.size() && (static_cast<unsigned char>(word[next]) & 0xC0) == 0x80)
            ++next;
        if (display_width(word.substr(0, next)) > cells && fits > 0) break;
        fits = end = next;
    }
    return fits;
}

// Where a shell_quoted word may be broken by a backslash-newline, which the
// shell drops outside quotes and inside double quotes alike: breakable[i] is
// true where a break may go before byte i: not inside single quotes or a
// $(...), nor after a backslash that escapes the next character, nor inside
// a UTF-8 character.
std::vector<bool> break_points(const std::string& word) {
    std::vector<bool> breakable(word.size() + 1, false);
    bool in_single = false, in_double = false, escaped = false;
    int depth = 0;  // of $( )
    for (std::size_t i = 0; i < word.size(); ++i) {
        const char c = word[i];
        breakable[i] =
            !in_single && depth == 0 && !escaped && (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        if (escaped) {
            escaped = false;
        } else if (in_single) {
            in_single = c != '\'';
        } else if (c == '\\') {
            escaped = true;
        } else if (c == '$' && i + 1 < word.size() && word[i + 1] == '(') {
            ++depth;
            breakable[++i] = false;
        } else if (depth > 0) {
            if (c == '\'') in_single = true;
            if (c == ')') --depth;
        } else if (c == '"') {
            in_double = !in_double;
        } else if (c == '\'' && !in_double) {
            in_single = true;
        }
    }
    breakable[word.size()] = true;
    return breakable;
}

PostNames as_they_are(const std::vector<std::string>& labels) {
    PostNames names;
    for (const auto& l : labels) names.shown[l] = l;
    return names;
}

// Labels that share a start ("6.18.44-fc-v669,iosched=bfq" and
// "...,iosched=mq-deadline") shown without it, cut after a separator so a
// name is never broken mid-word; nothing when that leaves a name empty or
// two names alike.
std::optional<PostNames> without_common_start(const std::vector<std::string>& labels) {
    if (labels.size() < 2) return std::nullopt;
    std::size_t common = labels.front().size();
    for (const auto& l : labels) {
        std::size_t i = 0;
        while (i < common && i < l.size() && l[i] == labels.front()[i]) ++i;
        common = i;
    }
    const std::string start = labels.front().substr(0, common);
    const std::size_t cut = start.find_last_of(",-_.@ :");
    if (cut == std::string::npos) return std::nullopt;
    PostNames names;
    names.shortened = true;
    std::set<std::string> seen;
    for (const auto& l : labels) {
        const std::string rest = l.substr(cut + 1);
        if (rest.empty() || !seen.insert(rest).second) return std::nullopt;
        names.shown[l] = rest;
    }
    return names;
}

// A, B, C ... (then L27, L28 ...), in the labels' order.
PostNames letters(const std::vector<std::string>& labels) {
    PostNames names;
    names.shortened = true;
    for (std::size_t i = 0; i < labels.size(); ++i)
        names.shown[labels[i]] =
            i < 26 ? std::string(1, static_cast<char>('A' + i)) : "L" + std::to_string(i + 1);
    return names;
}

ReportModel model_named(const std::vector<ResultFile>& files, const ReportOptions& options,
                        const PostNames& names) {
    std::vector<ResultFile> renamed = files;
    for (auto& f : renamed) f.label = names.shown.at(f.label);
    ReportOptions o = options;
    o.print_warnings = false;
    if (o.baseline) o.baseline = names.shown.at(*o.baseline);
    return build_report_model(renamed, o);
}

std::string workload_in_brief(const ReportModel& model) {
    const auto& config = model.labels.front().config;
    const nlohmann::json w =
        config.is_object() && config.contains("workload") && config["workload"].is_object()
            ? config["workload"]
            : nlohmann::json::object();
    std::string out =
        w.contains("kind") && w["kind"].is_string() ? w["kind"].get<std::string>() : "workload";
    if (w.contains("synthetic_size") && w["synthetic_size"].is_number())
        out += " " + std::to_string(w["synthetic_size"].get<long>());
    if (w.contains("kernel_config") && w["kernel_config"].is_string())
        out += " " + w["kernel_config"].get<std::string>();
    return out;
}

// `line` broken at spaces into lines of at most `columns` terminal cells,
// each continuation indented two more than the line; a word longer than a
// line is broken where it has to be.
std::vector<std::string> wrap_prose(const std::string& line, std::size_t columns) {
    const std::size_t indent = std::min(line.find_first_not_of(' '), columns / 2);
    const std::string more(std::min(indent + 2, columns / 2), ' ');
    std::vector<std::string> out;
    std::string current = line.substr(0, indent);
    bool empty = true;  // nothing but the indent on `current` yet
    std::istringstream words(line.substr(indent));
    for (std::string word; words >> word;) {
        if (!empty && display_width(current + " " + word) <= columns) {
            current += " " + word;
            continue;
        }
        if (!empty) {
            out.push_back(current);
            current = more;
        }
        while (display_width(current + word) > columns) {
            const std::size_t cut = fitting_prefix(word, columns - display_width(current));
            out.push_back(current + word.substr(0, cut));
            word = word.substr(cut);
            current = more;
        }
        current += word;
        empty = false;
    }
    if (!empty) out.push_back(current);
    return out;
}

// A row of a table: after its indent, columns lined up by runs of spaces.
bool is_table_row(const std::string& line) {
    const std::size_t start = line.find_first_not_of(' ');
    return start != std::string::npos && line.find("  ", start) != std::string::npos;
}

// A table row too wide, its columns kept where they are: cut after the last
// word that fits, the rest under it, indented four more (the row's last
// columns, the robot's measure names, move; nothing before them does).
std::vector<std::string> split_row(const std::string& line, std::size_t columns) {
    const std::size_t indent = std::min(line.find_first_not_of(' '), columns / 2);
    const std::string more(std::min(indent + 4, columns / 2), ' ');
    std::vector<std::string> out;
    std::string rest = line;
    while (display_width(rest) > columns) {
        std::size_t cut = std::string::npos;
        for (std::size_t i = rest.find(' ', rest.find_first_not_of(' ')); i != std::string::npos;
             i = rest.find(' ', i + 1)) {
            if (display_width(rest.substr(0, i)) > columns) break;
            if (rest[i - 1] != ' ') cut = i;
        }
        const std::size_t next = cut == std::string::npos ? cut : rest.find_first_not_of(' ', cut);
        if (next == std::string::npos) break;
        out.push_back(rest.substr(0, cut));
        rest = more + rest.substr(next);
    }
    if (display_width(rest) <= columns) {
        out.push_back(rest);
        return out;
    }
    for (const auto& piece : wrap_prose(rest, columns)) out.push_back(piece);
    return out;
}

// `raw` as lines of at most `columns` cells (prose broken at words, a table
// row after the last column that fits, or left whole), control characters
// escaped.
std::vector<std::string> wrap_line(const std::string& raw, std::size_t columns, bool rows_whole) {
    const std::string line = printable(raw);
    if (display_width(line) <= columns) return {line};
    if (is_table_row(line))
        return rows_whole ? std::vector<std::string>{line} : split_row(line, columns);
    return wrap_prose(line, columns);
}

}  // namespace

std::size_t widest_line(const std::string& text) {
    std::size_t widest = 0;
    for (const auto& line : split_lines(text)) widest = std::max(widest, display_width(line));
    return widest;
}

PostModel post_model(const std::vector<ResultFile>& given, const ReportOptions& options,
                     const std::function<bool(const ReportModel&)>& fits) {
    const std::vector<ResultFile> files = with_printable_text(given);
    ReportOptions o = options;
    o.print_warnings = false;
    std::vector<std::string> labels;
    for (const auto& l : build_report_model(files, o).labels) labels.push_back(l.label);
    PostModel post{model_named(files, o, as_they_are(labels)), as_they_are(labels)};
    if (fits(post.model)) return post;
    const auto shorter = without_common_start(labels);
    if (shorter) {
        post = {model_named(files, o, *shorter), *shorter};
        if (fits(post.model)) return post;
    }
    return {model_named(files, o, letters(labels)), letters(labels)};
}

std::vector<CompareView> views_against_baseline(const ReportModel& model) {
    std::vector<CompareView> views;
    for (const auto& l : model.labels)
        if (l.label != model.baseline)
            views.push_back(compare_view(model, model.baseline, l.label));
    return views;
}

std::string post_subject(const ReportModel& model, const std::vector<CompareView>& views) {
    std::vector<std::string> others;
    for (const auto& l : model.labels)
        if (l.label != model.baseline) others.push_back(l.label);
    const std::string who =
        others.empty() ? model.baseline : model.baseline + " vs " + join(others, ", ");
    std::string verdict;
    for (const auto& v : views)
        verdict += (verdict.empty() ? "" : "; ") +
                   (views.size() > 1 ? v.fresh + " " : std::string()) + v.short_verdict;
    const std::string loads =
        std::to_string(model.blocks.size()) + (model.blocks.size() == 1 ? " load" : " loads");
    const std::string tail = verdict.empty() ? "" : ": " + verdict;
    // With several labels judged, in fewer words still: how many differ.
    std::size_t differing = 0;
    for (const auto& v : views)
        differing += v.short_verdict != "no difference beyond noise" &&
                     v.short_verdict != "too few runs to judge";
    const std::string count = views.size() > 1 ? ": " + std::to_string(differing) + " of " +
                                                     std::to_string(views.size()) + " differ"
                                               : tail;
    // The most that fits: the loads go first, then the workload.
    for (const std::string& candidate :
         {who + ", " + workload_in_brief(model) + ", " + loads + tail,
          who + ", " + workload_in_brief(model) + tail, who + tail,
          who + ", " + workload_in_brief(model) + count + " beyond noise",
          who + count + " beyond noise", who + count}) {
        const std::string line = "Subject: [contest] " + candidate;
        if (display_width(line) <= kPostColumns) return line;
    }
    const std::string line = "Subject: [contest] " + who + tail;
    return line.substr(0, fitting_prefix(line, kPostColumns - 3)) + "...";
}

std::string post_facts(const ReportModel& model) {
    const auto facts = run_facts(model);
    std::size_t name_width = 0;
    for (const auto& f : facts) name_width = std::max(name_width, f.name.size() + 1);
    std::string out;
    for (const auto& f : facts) {
        const std::string name = f.name + ":" + std::string(name_width - f.name.size(), ' ');
        if (f.same()) {
            out += name + " " + f.values.front() + "\n";
            continue;
        }
        out += f.name + ":\n";
        for (std::size_t i = 0; i < f.values.size(); ++i)
            out += "  " + model.labels[i].label + ": " + f.values[i] + "\n";
    }
    return out;
}

// The command line of each label's files, said once when they agree;
// broken at words, each line but the last ending in a backslash so the
// whole pastes into a shell.
std::string post_command(const ReportModel& model) {
    std::map<std::string, std::vector<std::string>> by_command;  // command -> labels
    std::vector<std::vector<std::string>> commands;
    for (const auto& l : model.labels) {
        const auto words = command_words(l.config);
        const std::string key = join(words, " ");
        if (!by_command.count(key)) commands.push_back(words);
        by_command[key].push_back(l.label);
    }
    std::string out = "\nHow it was run";
    out += by_command.size() == 1 ? ":\n" : " (per label):\n";
    for (const auto& words : commands) {
        const auto& labels = by_command[join(words, " ")];
        if (by_command.size() > 1) out += "  " + join(labels, ", ") + ":\n";
        if (words.empty()) {
            out += "  not recorded (result files from before contest recorded its command line)\n";
            continue;
        }
        out += post_command_lines(words);
    }
    return out;
}

std::string post_command_lines(const std::vector<std::string>& words) {
    std::string out;
    const std::size_t room = kPostColumns - 2;  // for the " \" at the end
    std::string line = "  $";
    bool has_word = false;
    for (const auto& word : words) {
        if (has_word && display_width(line + " " + word) > room) {
            out += line + " \\\n";
            line = "   ";
        }
        line += " ";
        // Longer than a line: broken inside, where a backslash-newline is
        // dropped by the shell (unquoted and in double quotes alike), at the
        // last place that fits where it may go (else the first after).
        const std::vector<bool> breakable = break_points(word);
        std::size_t at = 0;
        while (display_width(line + word.substr(at)) > room) {
            const std::size_t fits = fitting_prefix(word.substr(at), room - display_width(line));
            std::size_t cut = at + fits;
            while (cut > at && !breakable[cut]) --cut;
            if (cut == at) {
                cut = at + fits;
                while (!breakable[cut]) ++cut;
            }
            if (cut == word.size()) break;
            out += line + word.substr(at, cut - at) + "\\\n";
            line.clear();
            at = cut;
        }
        line += word.substr(at);
        has_word = true;
    }
    return out + line + "\n";
}

std::string post_legend(const PostNames& names, const ReportModel& model) {
    if (!names.shortened) return "";
    std::string out = "\nLabels, shortened in this mail:\n";
    for (const auto& l : model.labels)
        for (const auto& [full, shown] : names.shown)
            if (shown == l.label) out += "  " + shown + " = " + full + "\n";
    return out;
}

std::string post_warnings(const ReportModel& model) {
    if (model.warnings.empty()) return "";
    std::string out = "\nWarnings:\n";
    for (const auto& w : model.warnings) out += "  " + w + "\n";
    return out;
}

std::string post_signature() {
    return std::string("\n-- \ncontest ") + kVersion + "\n";
}

std::string post_lines(std::string body, bool ascii, bool rows_whole) {
    if (ascii)
        for (std::size_t at = body.find("±"); at != std::string::npos; at = body.find("±", at))
            body.replace(at, std::string("±").size(), "+-");
    std::string out;
    for (const auto& line : split_lines(body))
        for (const auto& piece : wrap_line(line, kPostColumns, rows_whole)) out += piece + "\n";
    return out;
}

}  // namespace contest
