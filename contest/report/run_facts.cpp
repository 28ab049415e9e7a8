#include "contest/report/run_facts.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "contest/sys/json_text.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"

namespace contest {

namespace {

using nlohmann::json;

const json* member(const json& j, const char* key) {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

// A recorded value as text; a fact that could not be read ({"reason": ...})
// and anything absent is "".
std::string text_of(const json* j) {
    if (!j || j->is_null() || (j->is_object() && j->contains("reason"))) return "";
    if (j->is_string()) return j->get<std::string>();
    if (j->is_object() && j->contains("value")) return text_of(member(*j, "value"));
    return json_text(*j, -1);
}

// The kernel's facts: system.kernel (kernel_facts) where the file has it,
// else the older fields of the fingerprint itself.
std::string kernel_fact(const json& system, const char* key) {
    if (const json* kernel = member(system, "kernel"))
        if (const std::string v = text_of(member(*kernel, key)); !v.empty()) return v;
    return text_of(member(system, key));
}

std::string preemption(const json& system) {
    const json* kernel = member(system, "kernel");
    const json* p = kernel ? member(*kernel, "preemption") : nullptr;
    if (!p || !p->is_object()) return text_of(member(system, "preemption"));
    std::string out = text_of(member(*p, "config"));
    if (const json* dynamic = member(*p, "dynamic"); dynamic && *dynamic == true) {
        const std::string current = text_of(member(*p, "current"));
        out += current.empty() ? " (dynamic)" : " (dynamic, now " + current + ")";
    }
    return out;
}

std::string config_hash(const json& system) {
    const json* kernel = member(system, "kernel");
    const json* config = kernel ? member(*kernel, "config") : nullptr;
    const std::string sha = config ? text_of(member(*config, "sha256")) : "";
    return sha.substr(0, 12);  // enough to tell two .configs apart in a post
}

std::string cpu(const json& system) {
    std::string out = text_of(member(system, "cpu_model"));
    if (const std::string n = text_of(member(system, "cpus_online")); !n.empty())
        out += (out.empty() ? "" : ", ") + n + " CPUs online";
    return out;
}

std::string memory(const json& system) {
    const json* bytes = member(system, "mem_total_bytes");
    if (!bytes || !bytes->is_number()) return "";
    return fixed(bytes->get<double>() / (1024.0 * 1024 * 1024), 1) + " GiB";
}

std::string workload(const json& config) {
    const json* w = member(config, "workload");
    if (!w) return "";
    std::string out = text_of(member(*w, "kind"));
    if (const std::string size = text_of(member(*w, "synthetic_size")); !size.empty())
        out += " size " + size;
    for (const char* key : {"kernel_version", "kernel_config"})
        if (const std::string v = text_of(member(*w, key)); !v.empty()) out += " " + v;
    if (const json* command = member(*w, "command"); command && command->is_array()) {
        std::vector<std::string> words;
        for (const auto& word : *command) words.push_back(text_of(&word));
        out += ": " + join(words, " ");
    }
    return out;
}

std::string runs(const json& config, const LabelInfo& label, const ReportModel& model) {
    std::string out = text_of(member(config, "runs"));
    if (out.empty()) return "";
    out += out == "auto" ? " runs a load" : " a load";
    int rounds = 0;
    for (const auto& block : model.blocks)
        if (const Cell* cell = model.find_cell(block.load, label.label))
            for (const auto& run : cell->runs) rounds = std::max(rounds, run.round);
    if (rounds) out += ", " + std::to_string(rounds) + (rounds == 1 ? " round" : " rounds");
    if (const std::string order = text_of(member(config, "order")); !order.empty())
        out += ", order " + order;
    if (const std::string seed = text_of(member(config, "order_seed")); !seed.empty())
        out += " (seed " + seed + ")";
    return out;
}

// Whether the runs were in an emulated or accelerated guest, however a record
// names it: the first member called "accel", "accelerator" or "emulated",
// anywhere in the fingerprint or the config, as "accel=kvm".
std::string guest(const json& j, int depth = 0) {
    if (!j.is_object() || depth > 4) return "";
    for (const auto& [key, value] : j.items())
        if ((key == "accel" || key == "accelerator" || key == "emulated") && !value.is_null() &&
            !value.is_object() && !value.is_array())
            return key + "=" + text_of(&value);
    for (const auto& [key, value] : j.items())
        if (const std::string found = guest(value, depth + 1); !found.empty()) return found;
    return "";
}

}  // namespace

bool RunFact::same() const {
    return std::all_of(values.begin(), values.end(),
                       [&](const std::string& v) { return v == values.front(); });
}

std::vector<RunFact> run_facts(const ReportModel& model) {
    std::vector<RunFact> facts = {{"CPU", {}},      {"Memory", {}},     {"Kernel", {}},
                                  {"HZ", {}},       {"Preemption", {}}, {".config sha256", {}},
                                  {"Workload", {}}, {"Runs", {}},       {"Containment", {}},
                                  {"Guest", {}},    {"Started", {}}};
    for (const auto& label : model.labels) {
        const json& s = label.system;
        const json& c = label.config;
        const std::string values[] = {cpu(s),
                                      memory(s),
                                      text_of(member(s, "kernel_release")),
                                      kernel_fact(s, "config_hz"),
                                      preemption(s),
                                      config_hash(s),
                                      workload(c),
                                      runs(c, label, model),
                                      text_of(member(c, "containment")),
                                      guest(s).empty() ? guest(c) : guest(s),
                                      label.started_at};
        for (std::size_t i = 0; i < facts.size(); ++i) facts[i].values.push_back(values[i]);
    }
    std::vector<RunFact> recorded;
    for (auto& fact : facts) {
        // Labels are usually the kernel's release: then saying it again says nothing.
        if (fact.name == "Kernel") {
            bool as_labels = true;
            for (std::size_t i = 0; i < fact.values.size(); ++i)
                as_labels = as_labels && fact.values[i] == model.labels[i].label;
            if (as_labels) continue;
        }
        if (std::all_of(fact.values.begin(), fact.values.end(),
                        [](const std::string& v) { return v.empty(); }))
            continue;
        // push_back, not `v = "-"`: g++ 12 warns falsely on that copy (-Wstringop-overflow).
        for (auto& v : fact.values)
            if (v.empty()) v.push_back('-');
        recorded.push_back(std::move(fact));
    }
    return recorded;
}

std::vector<std::string> command_words(const nlohmann::json& config) {
    const json* line = member(config, "command_line");
    if (!line || !line->is_array() || line->empty()) return {};
    std::vector<std::string> words = {"contest"};
    for (const auto& word : *line) words.push_back(shell_quoted(text_of(&word)));
    return words;
}

}  // namespace contest
