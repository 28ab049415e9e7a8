#include "contest/analysis/duet_starts.h"

#include <algorithm>
#include <map>
#include <optional>

#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

// A number the file holds at `key`, or nullopt (the file is not trusted to
// have it, or to have a number there).
std::optional<double> number_at(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

std::string text_at(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? printable(it->get<std::string>()) : "";
}

std::string milliseconds(double s) {
    return fixed(s * 1000, 1) + " ms";
}

}  // namespace

void add_duet_starts(const nlohmann::json& config, DuetStarts& into) {
    const auto vm = config.find("vm");
    if (vm == config.end() || !vm->is_object()) return;
    if (const auto duet = vm->find("duet");
        duet != vm->end() && duet->is_object() && duet->value("taken", true) == false)
        into.not_taken = text_at(*duet, "why_not");
    const auto boots = vm->find("boots");
    if (boots == vm->end() || !boots->is_array()) return;
    for (const auto& boot : *boots) {
        if (!boot.is_object() || !boot.contains("duet") || !boot["duet"].is_object()) continue;
        const auto starts = boot["duet"].find("starts");
        if (starts == boot["duet"].end() || !starts->is_array()) continue;
        const auto round = number_at(boot, "round");
        for (const auto& s : *starts) {
            if (!s.is_object()) continue;
            if (const auto after = number_at(s, "after_go_s"); after && *after < 0) ++into.early;
            const auto spread = number_at(s, "spread_s");
            if (!spread) continue;
            ++into.runs;
            if (*spread > kDuetSpreadWarnS) ++into.wide;
            if (*spread >= into.widest_s) {
                into.widest_s = *spread;
                into.widest_where = "round " + (round ? fixed(*round, 0) : std::string("?")) +
                                    ", " + text_at(s, "load");
            }
        }
    }
}

void note_duet_starts(const std::vector<ResultFile>& files, ReportModel& model) {
    std::map<std::string, DuetStarts> by_label;
    std::vector<std::string> order;
    for (const auto& file : files) {
        if (!by_label.count(file.label)) order.push_back(file.label);
        add_duet_starts(file.config, by_label[file.label]);
    }
    std::vector<std::string> held;
    std::string widest_where;
    double widest = -1;
    for (const auto& label : order) {
        const DuetStarts& d = by_label[label];
        if (!d.not_taken.empty())
            model.notes.push_back(label + ": --duet was asked, and not taken (" + d.not_taken +
                                  "): its guests took their turns one after another.");
        if (d.runs == 0) continue;
        if (d.early || d.wide) {
            model.warnings.push_back(
                label + ": --duet: the start barrier did not hold in " +
                std::to_string(std::max(d.early, d.wide)) + " of " + std::to_string(d.runs) +
                " runs (" +
                (d.early ? std::to_string(d.early) + " started before it let them go; " : "") +
                "the widest spread of the guests' starts " + seconds_text(d.widest_s, 3) + ", " +
                d.widest_where + "): those runs were not taken at one moment");
            continue;
        }
        held.push_back(label);
        if (d.widest_s > widest) {
            widest = d.widest_s;
            widest_where = d.widest_where;
        }
    }
    if (!held.empty())
        model.notes.push_back("Duet: the guests of " + join(held, ", ") +
                              " ran at once, each on host CPUs of its own, every run started in "
                              "all of a round's guests within " +
                              milliseconds(widest) + " (the widest: " + widest_where + ").");
}

}  // namespace contest
