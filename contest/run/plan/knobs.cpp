#include "contest/run/plan/knobs.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "contest/observe/block_device.h"
#include "contest/result/result_file.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_text.h"
#include "contest/sys/knob_file.h"
#include "contest/sys/process.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// The I/O scheduler of the disk the workdir is on (a partition's disk).
std::optional<fs::path> iosched_path(const fs::path& workdir, std::string& why) {
    const BlockDevice dev = block_device_of(workdir.string());
    if (!dev.found) {
        why = dev.reason;
        return std::nullopt;
    }
    return fs::path("/sys/block") / dev.disk / "queue" / "scheduler";
}

std::optional<fs::path> fixed_path(const char* path, std::string& why) {
    if (fs::exists(path)) return fs::path(path);
    why = std::string(path) + " does not exist on this kernel";
    return std::nullopt;
}

struct KnobName {
    const char* name;
    std::function<std::optional<fs::path>(const fs::path& workdir, std::string& why)> path;
};

const std::array<KnobName, 6>& knob_names() {
    static const std::array<KnobName, 6> names = {{
        {"iosched", iosched_path},
        {"thp",
         [](const fs::path&, std::string& why) {
             return fixed_path("/sys/kernel/mm/transparent_hugepage/enabled", why);
         }},
        {"autogroup",
         [](const fs::path&, std::string& why) {
             return fixed_path("/proc/sys/kernel/sched_autogroup_enabled", why);
         }},
        {"swappiness", [](const fs::path&,
                          std::string& why) { return fixed_path("/proc/sys/vm/swappiness", why); }},
        {"dirty_ratio",
         [](const fs::path&, std::string& why) {
             return fixed_path("/proc/sys/vm/dirty_ratio", why);
         }},
        // A PREEMPT_DYNAMIC kernel with debugfs mounted.
        {"preempt",
         [](const fs::path&, std::string& why) -> std::optional<fs::path> {
             auto p = fixed_path("/sys/kernel/debug/sched/preempt", why);
             if (p && ::access(p->c_str(), W_OK) != 0) {
                 why = p->string() + " is not writable here";
                 return std::nullopt;
             }
             if (!p) why += " (a PREEMPT_DYNAMIC kernel with debugfs mounted has it)";
             return p;
         }},
    }};
    return names;
}

void replace_all(std::string& text, const std::string& what, const std::string& with) {
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
        text.replace(at, what.size(), with);
}

void write_note(const fs::path& note, const std::vector<Knob>& knobs) {
    nlohmann::json j = {{"pid", ::getpid()},
                        {"start_time", process_start_time(::getpid())},
                        {"knobs", nlohmann::json::array()}};
    for (const auto& k : knobs)
        j["knobs"].push_back(
            {{"name", k.name}, {"path", k.path.string()}, {"original", k.original}});
    write_file_atomically(note, json_text(j, 2) + "\n");
}

// Puts one knob back; false (said on stderr) when it will not go.
bool put_back(const fs::path& path, const std::string& name, const std::string& original) {
    if (auto why = write_knob_file(path, original)) {
        warn("could not restore " + name + " (" + path.string() + ") to '" + original +
             "': " + *why);
        return false;
    }
    return true;
}

// The note goes once every knob it names is back; one naming a knob that
// would not go back is kept, and said so.
void close_note(const fs::path& note, bool all_back) {
    std::error_code ec;
    if (all_back) {
        fs::remove(note, ec);
        return;
    }
    say(note.string() +
        " stays for the next start to try again (or restore by hand and remove it)");
}

}  // namespace

std::string knob_short_names() {
    std::string out;
    for (const auto& k : knob_names()) out += (out.empty() ? "" : ", ") + std::string(k.name);
    return out;
}

VarySpec parse_vary(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw UsageError(
            "--vary '" + text +
            "': expected KNOB=VALUE1,VALUE2 (KNOB: a path under /proc/sys or /sys, or " +
            knob_short_names() + ")");
    VarySpec spec{text.substr(0, eq), split_commas(text.substr(eq + 1))};
    std::set<std::string> seen;
    for (const auto& v : spec.values) {
        if (v.empty() || v.find_first_of(" \t\n") != std::string::npos)
            throw UsageError("--vary '" + text + "': a value is empty or has a space");
        if (!seen.insert(v).second)
            throw UsageError("--vary '" + text + "': value '" + v + "' is given twice");
    }
    return spec;
}

Knob resolve_knob(const VarySpec& spec, const fs::path& workdir) {
    Knob knob;
    knob.values = spec.values;
    std::string why;
    if (spec.knob.find('/') != std::string::npos) {
        knob.path = spec.knob;
        knob.name = knob.path.filename().string();
    } else {
        const auto& names = knob_names();
        auto it = std::find_if(names.begin(), names.end(),
                               [&](const KnobName& k) { return spec.knob == k.name; });
        if (it == names.end())
            throw UsageError("--vary " + printable(spec.knob) +
                             ": no such knob (a path under /proc/sys or /sys, or one of " +
                             knob_short_names() + ")");
        auto path = it->path(workdir, why);
        if (!path)
            throw UsageError("--vary " + printable(spec.knob) + ": not available here: " + why);
        knob.path = *path;
        knob.name = spec.knob;
    }
    auto original = read_knob_file(knob.path, why);
    if (!original) throw UsageError("--vary " + printable(spec.knob) + ": " + why);
    knob.original = *original;
    return knob;
}

std::vector<std::vector<std::size_t>> vary_combinations(const std::vector<Knob>& knobs) {
    std::vector<std::vector<std::size_t>> out{{}};
    for (const auto& k : knobs) {
        std::vector<std::vector<std::size_t>> next;
        for (const auto& prefix : out)
            for (std::size_t v = 0; v < k.values.size(); ++v) {
                next.push_back(prefix);
                next.back().push_back(v);
            }
        out = std::move(next);
        if (out.size() > kMaxVaryCombinations)
            throw UsageError("--vary: more than " + std::to_string(kMaxVaryCombinations) +
                             " combinations of values; vary fewer values at once");
    }
    return out;
}

std::string vary_label(const std::string& format, const std::string& label,
                       const std::vector<Knob>& knobs,
                       const std::vector<std::size_t>& combination) {
    std::string vary, text = format;
    for (std::size_t k = 0; k < knobs.size(); ++k) {
        const std::string& value = knobs[k].values[combination[k]];
        vary += (k ? "," : "") + knobs[k].name + "=" + value;
        const std::string n = k == 0 ? "" : std::to_string(k + 1);
        replace_all(text, "{knob" + n + "}", knobs[k].name);
        replace_all(text, "{value" + n + "}", value);
    }
    replace_all(text, "{label}", label);
    replace_all(text, "{vary}", vary);
    return text;
}

fs::path knob_note_path(const fs::path& workdir) {
    return workdir / "vary-restore.json";
}

KnobGuard::KnobGuard(const std::vector<Knob>& knobs, const fs::path& workdir)
    : knobs_(knobs), written_(knobs.size()), note_(knob_note_path(workdir)) {
    write_note(note_, knobs_);
    for (std::size_t k = 0; k < knobs_.size(); ++k)
        for (const auto& value : knobs_[k].values) {
            std::string why;
            auto refused = write_knob_file(knobs_[k].path, value);
            if (!refused) {
                written_[k] = value;
                auto back = read_knob_file(knobs_[k].path, why);
                if (!back)
                    refused = why;
                else if (*back != value)
                    refused = "it reads back as '" + *back + "'";
            }
            if (refused) {
                restore();
                throw UsageError("--vary " + knobs_[k].name + ": value '" + value +
                                 "' refused by " + knobs_[k].path.string() + ": " + *refused);
            }
        }
}

KnobGuard::~KnobGuard() {
    restore();
}

void KnobGuard::set(const std::vector<std::size_t>& combination) {
    for (std::size_t k = 0; k < knobs_.size(); ++k) {
        const std::string& value = knobs_[k].values[combination[k]];
        if (written_[k] == value) continue;
        if (auto why = write_knob_file(knobs_[k].path, value))
            throw EnvironmentError("--vary " + knobs_[k].name + ": cannot set '" + value +
                                   "' now: " + *why);
        written_[k] = value;
    }
}

void KnobGuard::restore() {
    if (restored_) return;
    restored_ = true;
    bool all_back = true;
    for (std::size_t k = 0; k < knobs_.size(); ++k) {
        if (!written_[k]) continue;
        if (put_back(knobs_[k].path, knobs_[k].name, knobs_[k].original)) {
            if (*written_[k] != knobs_[k].original)
                say(knobs_[k].name + " restored to '" + knobs_[k].original + "'");
        } else {
            all_back = false;
        }
    }
    close_note(note_, all_back);
}

void restore_knobs_left_changed(const fs::path& workdir) {
    const fs::path note = knob_note_path(workdir);
    if (!fs::exists(note)) return;
    nlohmann::json j;
    try {
        std::ifstream in(note);
        j = nlohmann::json::parse(in);
    } catch (const std::exception& e) {
        throw EnvironmentError(note.string() + ": unreadable note of knobs to restore (" +
                               e.what() + "); restore them by hand and remove it");
    }
    const pid_t pid = j.value("pid", 0);
    // Still running: its own guard restores them.
    if (!contest_gone(pid, j.value("start_time", 0ULL))) return;
    bool all_back = true;
    for (const auto& k : j.value("knobs", nlohmann::json::array())) {
        const std::string name = k.value("name", ""), path = k.value("path", ""),
                          original = k.value("original", "");
        if (put_back(path, name, original))
            say("restored " + name + " (" + path + ") to '" + original +
                "', left changed by contest pid " + std::to_string(pid) + " that did not finish (" +
                note.string() + ")");
        else
            all_back = false;
    }
    close_note(note, all_back);
}

}  // namespace contest
