#include "contest/boot/boot_state.h"

#include <fcntl.h>

#include <array>
#include <utility>

#include <nlohmann/json.hpp>

#include "contest/sys/atomic_file.h"
#include "contest/sys/enum_names.h"
#include "contest/sys/errors.h"
#include "contest/sys/path_below.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/text.h"
#include "contest/sys/trusted_folder.h"

namespace contest {
namespace {

using nlohmann::json;

constexpr int kSchema = 1;

constexpr std::array<EnumName<BootMethod>, 3> kBootMethodNames{{
    {BootMethod::kexec, "kexec"},
    {BootMethod::grub, "grub"},
    {BootMethod::systemd_boot, "systemd-boot"},
}};

// Every string valid UTF-8 before it becomes JSON.
json text(const std::string& s) {
    return valid_utf8(s);
}

json strings(const std::vector<std::string>& v) {
    json out = json::array();
    for (const auto& s : v) out.push_back(text(s));
    return out;
}

// Reads fields of one object of the file, each checked for its type; the
// first wrong one is a UsageError naming the file and the field.
class Fields {
  public:
    Fields(const json& j, std::string where) : j_(j), where_(std::move(where)) {
        if (!j_.is_object()) bad("", "not an object");
    }
    std::string str(const char* name) const {
        const json& v = at(name);
        if (!v.is_string()) bad(name, "not a string");
        return v.get<std::string>();
    }
    std::uint64_t u64(const char* name) const {
        const json& v = at(name);
        if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
            bad(name, "not a whole number >= 0");
        return v.get<std::uint64_t>();
    }
    unsigned u32(const char* name) const {
        const std::uint64_t v = u64(name);
        if (v > 0xffffffffu) bad(name, "too large");
        return static_cast<unsigned>(v);
    }
    double num(const char* name) const {
        const json& v = at(name);
        if (!v.is_number()) bad(name, "not a number");
        return v.get<double>();
    }
    bool flag(const char* name) const {
        const json& v = at(name);
        if (!v.is_boolean()) bad(name, "not true or false");
        return v.get<bool>();
    }
    std::vector<std::string> strs(const char* name) const {
        std::vector<std::string> out;
        for (const json& v : array(name)) {
            if (!v.is_string()) bad(name, "holds a value that is not a string");
            out.push_back(v.get<std::string>());
        }
        return out;
    }
    const json& array(const char* name) const {
        const json& v = at(name);
        if (!v.is_array()) bad(name, "not a list");
        return v;
    }
    std::string within(const char* name, std::size_t i) const {
        return where_ + ": " + name + "[" + std::to_string(i) + "]";
    }
    [[noreturn]] void bad(const std::string& name, const std::string& why) const {
        throw UsageError(where_ + (name.empty() ? "" : ": " + name) + ": " + why);
    }

  private:
    const json& at(const char* name) const {
        const auto it = j_.find(name);
        if (it == j_.end()) bad(name, "missing");
        return *it;
    }
    const json& j_;
    std::string where_;
};

// The value of the word a field holds, or a UsageError naming the field.
template <typename Enum, std::size_t N>
Enum closed_word(const Fields& f, const char* name, const std::array<EnumName<Enum>, N>& names,
                 const char* what) {
    const std::string word = f.str(name);
    const auto value = value_in(names, word);
    if (!value) f.bad(name, "'" + printable(word) + "' is no " + what);
    return *value;
}

}  // namespace

BootMethod parse_boot_method(const std::string& name) {
    if (auto m = value_in(kBootMethodNames, name)) return *m;
    throw UsageError("--boot-method '" + printable(name) +
                     "': expected kexec, grub or systemd-boot");
}

const char* boot_method_name(BootMethod method) {
    return name_in(kBootMethodNames, method).data();
}

std::string boot_state_text(const BootState& s) {
    json labels = json::array();
    for (const auto& l : s.labels)
        labels.push_back({{"label", text(l.label)},
                          {"kernel", text(l.kernel)},
                          {"image", text(l.image)},
                          {"initrd", text(l.initrd)},
                          {"cmdline", text(l.cmdline)},
                          {"release", text(l.release)},
                          {"result", text(l.result)},
                          {"cannot_boot_next", text(l.cannot_boot_next)}});
    json turns = json::array();
    for (const auto& t : s.turns)
        turns.push_back({{"round", t.round},
                         {"label", t.label},
                         {"loads", strings(t.loads)},
                         {"status", boot_turn_status_name(t.status)}});
    json boots = json::array();
    for (const auto& b : s.boots)
        boots.push_back({{"boot_id", text(b.boot_id)},
                         {"expected", text(b.expected)},
                         {"release", text(b.release)},
                         {"cmdline", text(b.cmdline)},
                         {"at", text(b.at)},
                         {"up_s", b.up_s},
                         {"settled", text(b.settled)},
                         {"outcome", text(b.outcome)}});
    const json j = {{"schema", kSchema},
                    {"phase", boot_phase_name(s.phase)},
                    {"method", boot_method_name(s.method)},
                    {"argv", strings(s.argv)},
                    {"cwd", text(s.cwd)},
                    {"workdir", text(s.workdir)},
                    {"seed", s.seed},
                    {"started_at", text(s.started_at)},
                    {"start_release", text(s.start_release)},
                    {"start_cmdline", text(s.start_cmdline)},
                    {"binary", text(s.binary)},
                    {"unit_root", text(s.unit_root)},
                    {"labels", labels},
                    {"turns", turns},
                    {"next_turn", s.next_turn},
                    {"boots_asked", s.boots_asked},
                    {"boot_max", s.boot_max},
                    {"stop_on_failure", s.stop_on_failure},
                    {"boots", boots},
                    {"note", text(s.note)}};
    return j.dump(2) + "\n";
}

BootState boot_state_from_text(const std::string& text_in, const std::string& where) {
    json j;
    try {
        j = json::parse(text_in);
    } catch (const json::exception& e) {
        throw UsageError(where + ": not JSON (" + std::string(e.what()) + ")");
    }
    const Fields f(j, where);
    if (f.u64("schema") != kSchema)
        f.bad("schema", "not " + std::to_string(kSchema) + ", this contest's");
    BootState s;
    s.phase = closed_word(f, "phase", kBootPhaseNames, "phase");
    s.method = closed_word(f, "method", kBootMethodNames, "boot method");
    s.argv = f.strs("argv");
    s.cwd = f.str("cwd");
    s.workdir = f.str("workdir");
    s.seed = f.u64("seed");
    s.started_at = f.str("started_at");
    s.start_release = f.str("start_release");
    s.start_cmdline = f.str("start_cmdline");
    s.binary = f.str("binary");
    s.unit_root = f.str("unit_root");
    const json& labels = f.array("labels");
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const Fields l(labels[i], f.within("labels", i));
        s.labels.push_back({l.str("label"), l.str("kernel"), l.str("image"), l.str("initrd"),
                            l.str("cmdline"), l.str("release"), l.str("result"),
                            l.str("cannot_boot_next")});
        if (auto why = label_problem(s.labels.back().label)) l.bad("label", *why);
    }
    const json& turns = f.array("turns");
    for (std::size_t i = 0; i < turns.size(); ++i) {
        const Fields t(turns[i], f.within("turns", i));
        BootTurn turn;
        turn.round = t.u32("round");
        turn.label = t.u64("label");
        if (turn.label >= s.labels.size()) t.bad("label", "no such label");
        turn.loads = t.strs("loads");
        turn.status = closed_word(t, "status", kBootTurnStatusNames, "turn status");
        s.turns.push_back(std::move(turn));
    }
    s.next_turn = f.u64("next_turn");
    if (s.next_turn > s.turns.size()) f.bad("next_turn", "past the last turn");
    s.boots_asked = f.u32("boots_asked");
    s.boot_max = f.u32("boot_max");
    s.stop_on_failure = f.flag("stop_on_failure");
    const json& boots = f.array("boots");
    for (std::size_t i = 0; i < boots.size(); ++i) {
        const Fields b(boots[i], f.within("boots", i));
        s.boots.push_back({b.str("boot_id"), b.str("expected"), b.str("release"), b.str("cmdline"),
                           b.str("at"), b.num("up_s"), b.str("settled"), b.str("outcome")});
    }
    s.note = f.str("note");
    return s;
}

std::filesystem::path boot_binary_path(const std::filesystem::path& folder) {
    return folder / ".boot" / "contest";
}

void check_state_paths(const BootState& s, const std::filesystem::path& folder,
                       const std::string& where) {
    namespace fs = std::filesystem;
    auto bad = [&](const std::string& field, const std::string& why) {
        throw UsageError(where + ": " + field + ": " + why);
    };
    if (s.binary != boot_binary_path(folder).string())
        bad("binary", "'" + printable(s.binary) + "' is not " + boot_binary_path(folder).string() +
                          ", this run's copy of contest");
    for (std::size_t i = 0; i < s.labels.size(); ++i) {
        const fs::path result = s.labels[i].result;
        if (result != result.lexically_normal() || !path_below(result, folder))
            bad("labels[" + std::to_string(i) + "]: result",
                "'" + printable(s.labels[i].result) + "' is not below " + folder.string());
    }
    const std::pair<const char*, const std::string*> absolute[] = {
        {"cwd", &s.cwd}, {"workdir", &s.workdir}, {"unit_root", &s.unit_root}};
    for (const auto& [field, value] : absolute)
        if (!fs::path(*value).is_absolute())
            bad(field, "'" + printable(*value) + "' is not an absolute path");
}

void check_state_place(const std::filesystem::path& path) {
    if (auto why = file_open_to_others(path.lexically_normal()))
        throw EnvironmentError("the boot run's state " + printable(path.string()) + ": " + *why +
                               ": refusing it, root runs what it names at every boot (a --boot "
                               "run's folder, and each above it, is root's: chown root, chmod "
                               "go-w)");
}

BootState read_boot_state(const std::filesystem::path& path_in) {
    const std::filesystem::path path = path_in.lexically_normal();
    const std::string where = printable(path.string());
    // Before anything is read: whoever could write the folder could have
    // written the state, which root then runs.
    check_state_place(path);
    const RegularFileRead got =
        read_regular_file_at(AT_FDCWD, path.c_str(), kMaxBootStateBytes, false);
    if (got.refusal != RegularFileRead::Refusal::none)
        throw EnvironmentError("the boot run's state " + where + ": " + got.why());
    BootState s = boot_state_from_text(got.text, where);
    check_state_paths(s, path.parent_path(), where);
    for (const auto& label : s.labels)
        if (auto why = file_open_to_others(label.result))
            throw EnvironmentError("the boot run's result file " + printable(label.result) + ": " +
                                   *why + ": refusing it, root writes it");
    return s;
}

void write_boot_state(const std::filesystem::path& path, const BootState& state) {
    write_file_atomically(path, boot_state_text(state));
}

}  // namespace contest
