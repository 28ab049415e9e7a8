#include "contest/boot/boot_state.h"

#include <fcntl.h>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <variant>

#include <nlohmann/json.hpp>

#include "contest/sys/atomic_file.h"
#include "contest/sys/enum_names.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_record.h"
#include "contest/sys/path_below.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/text.h"
#include "contest/sys/trusted_folder.h"

namespace contest {
namespace {

using nlohmann::json;

// 2: the run's words, their folder and the seed moved to the run's journal.
constexpr int kSchema = 2;

// One field of a record of the state as the file holds it. The tables
// below are the only place a field is named: boot_state_text and
// boot_state_from_text both walk them.
template <typename Record>
struct Field {
    // The unsigned types by their own names, so that std::size_t and
    // std::uint64_t are each one of them on every machine.
    using Member =
        std::variant<std::string Record::*, std::vector<std::string> Record::*, unsigned Record::*,
                     unsigned long Record::*, unsigned long long Record::*, double Record::*,
                     bool Record::*, BootMethod Record::*, BootPhase Record::*,
                     BootTurnStatus Record::*, std::vector<BootLabel> Record::*,
                     std::vector<BootTurn> Record::*, std::vector<BootSeen> Record::*>;
    const char* name;
    Member member;
    // Why the value read cannot be, given the state's fields read before
    // it (a table's order is the order of reading); nothing when it can.
    std::optional<std::string> (*problem)(const Record&, const BootState&) = nullptr;
    // A field later contests added: absent from the file when it holds its
    // default (so an earlier contest's state is written back as it was),
    // and its default when absent.
    bool optional = false;
};

std::optional<std::string> bad_label_name(const BootLabel& l, const BootState&) {
    return label_problem(l.label);
}

// A release names a folder in lib/modules/: one name, nothing above it.
std::optional<std::string> bad_built_release(const BootLabel& l, const BootState&) {
    const std::string& r = l.built_release;
    if (r.find('/') == std::string::npos && r != "." && r != ".." &&
        r.find('\0') == std::string::npos)
        return std::nullopt;
    return "not a release name (a '/', '.' or '..')";
}

std::optional<std::string> no_such_label(const BootTurn& t, const BootState& s) {
    if (t.label < s.labels.size()) return std::nullopt;
    return "no such label";
}

// Root runs `then` at the run's end: nothing but the one command contest
// bisect --boot gives, naming a bisection's folder above this run's.
std::optional<std::string> bad_then(const BootState& s, const BootState&) {
    if (s.then.empty()) return std::nullopt;
    if (s.then.size() != 3 || s.then[0] != "bisect" || s.then[1] != "--continue")
        return "not 'bisect --continue FOLDER'";
    const std::filesystem::path folder = s.then[2];
    if (!folder.is_absolute() || folder != folder.lexically_normal())
        return "'" + printable(s.then[2]) + "' is not an absolute path";
    return std::nullopt;
}

std::optional<std::string> past_last_turn(const BootState& s, const BootState&) {
    if (s.next_turn <= s.turns.size()) return std::nullopt;
    return "past the last turn";
}

// clang-format off
const Field<BootLabel> kLabelFields[] = {
    {"label",            &BootLabel::label, bad_label_name},
    {"kernel",           &BootLabel::kernel},
    {"image",            &BootLabel::image},
    {"initrd",           &BootLabel::initrd},
    {"cmdline",          &BootLabel::cmdline},
    {"release",          &BootLabel::release},
    {"result",           &BootLabel::result},
    {"cannot_boot_next", &BootLabel::cannot_boot_next},
    {"built_release",    &BootLabel::built_release, bad_built_release, true},
    {"build",            &BootLabel::build, nullptr, true},
};

const Field<BootTurn> kTurnFields[] = {
    {"round",  &BootTurn::round},
    {"label",  &BootTurn::label, no_such_label},
    {"loads",  &BootTurn::loads},
    {"status", &BootTurn::status},
};

const Field<BootSeen> kSeenFields[] = {
    {"boot_id",  &BootSeen::boot_id},
    {"expected", &BootSeen::expected},
    {"release",  &BootSeen::release},
    {"cmdline",  &BootSeen::cmdline},
    {"at",       &BootSeen::at},
    {"up_s",     &BootSeen::up_s},
    {"settled",  &BootSeen::settled},
    {"outcome",  &BootSeen::outcome},
};

// schema is not a member: written and checked by hand. labels before
// turns, turns before next_turn: each is checked against the one before.
const Field<BootState> kStateFields[] = {
    {"phase",           &BootState::phase},
    {"method",          &BootState::method},
    {"workdir",         &BootState::workdir},
    {"started_at",      &BootState::started_at},
    {"start_release",   &BootState::start_release},
    {"start_cmdline",   &BootState::start_cmdline},
    {"binary",          &BootState::binary},
    {"unit_root",       &BootState::unit_root},
    {"labels",          &BootState::labels},
    {"turns",           &BootState::turns},
    {"next_turn",       &BootState::next_turn, past_last_turn},
    {"boots_asked",     &BootState::boots_asked},
    {"boot_max",        &BootState::boot_max},
    {"stop_on_failure", &BootState::stop_on_failure},
    {"boots",           &BootState::boots},
    {"note",            &BootState::note},
    {"keep_built",      &BootState::keep_built, nullptr, true},
    {"then",            &BootState::then, bad_then, true},
};
// clang-format on

std::span<const Field<BootState>> fields_of(const BootState&) {
    return kStateFields;
}
std::span<const Field<BootLabel>> fields_of(const BootLabel&) {
    return kLabelFields;
}
std::span<const Field<BootTurn>> fields_of(const BootTurn&) {
    return kTurnFields;
}
std::span<const Field<BootSeen>> fields_of(const BootSeen&) {
    return kSeenFields;
}

// A record of the state: one with a table of fields.
template <typename T>
concept StateRecord = requires(const T& record) {
    fields_of(record);
};

// Every string is made valid UTF-8 here, the one way into the file.
template <typename T>
json value_to_json(const T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
        return valid_utf8(v);
    } else if constexpr (std::is_enum_v<T>) {
        return std::string(name_in(JsonWords<T>::names, v));
    } else if constexpr (StateRecord<T>) {
        json out = json::object();
        for (const auto& f : fields_of(v))
            std::visit(
                [&](auto member) {
                    using M = std::remove_cvref_t<decltype(v.*member)>;
                    // Optional fields are texts, switches and lists of texts.
                    if constexpr (std::is_same_v<M, std::string> || std::is_same_v<M, bool> ||
                                  std::is_same_v<M, std::vector<std::string>>)
                        if (f.optional && v.*member == M{}) return;
                    out[f.name] = value_to_json(v.*member);
                },
                f.member);
        return out;
    } else if constexpr (std::is_arithmetic_v<T>) {
        return v;
    } else {  // a list
        json out = json::array();
        for (const auto& element : v) out.push_back(value_to_json(element));
        return out;
    }
}

// A UsageError naming the file (and the record in it) and the field.
[[noreturn]] void refuse(const std::string& where, const std::string& field,
                         const std::string& why) {
    throw UsageError(where + (field.empty() ? "" : ": " + field) + ": " + why);
}

const json& field_in(const json& record, const std::string& where, const char* name) {
    const auto it = record.find(name);
    if (it == record.end()) refuse(where, name, "missing");
    return *it;
}

template <typename Record>
void read_fields(const json& in, const std::string& where, Record& record, const BootState& state);

// The value of field `name` of the record at where, checked for its type
// (and a number for its range), or a UsageError naming them.
template <typename T>
T value_from_json(const json& v, const std::string& where, const char* name,
                  const BootState& state) {
    auto bad = [&](const std::string& why) { refuse(where, name, why); };
    if constexpr (std::is_same_v<T, std::string>) {
        if (!v.is_string()) bad("not a string");
        return v.get<std::string>();
    } else if constexpr (std::is_same_v<T, bool>) {
        if (!v.is_boolean()) bad("not true or false");
        return v.get<bool>();
    } else if constexpr (std::is_same_v<T, double>) {
        if (!v.is_number()) bad("not a number");
        return v.get<double>();
    } else if constexpr (std::is_unsigned_v<T>) {
        if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
            bad("not a whole number >= 0");
        const auto n = v.get<std::uint64_t>();
        if (n > std::numeric_limits<T>::max()) bad("too large");
        return static_cast<T>(n);
    } else if constexpr (std::is_enum_v<T>) {
        const auto word = value_from_json<std::string>(v, where, name, state);
        const auto value = value_in(JsonWords<T>::names, word);
        if (!value) bad("'" + printable(word) + "' is no " + JsonWords<T>::what);
        return *value;
    } else {  // a list
        if (!v.is_array()) bad("not a list");
        T out;
        for (std::size_t i = 0; i < v.size(); ++i) {
            using Element = typename T::value_type;
            if constexpr (StateRecord<Element>) {
                const std::string within = where + ": " + name + "[" + std::to_string(i) + "]";
                Element& element = out.emplace_back();
                read_fields(v[i], within, element, state);
            } else {
                if (!v[i].is_string()) bad("holds a value that is not a string");
                out.push_back(v[i].get<std::string>());
            }
        }
        return out;
    }
}

// Every field of the record at where, in the order of its table.
template <typename Record>
void read_fields(const json& in, const std::string& where, Record& record, const BootState& state) {
    if (!in.is_object()) refuse(where, "", "not an object");
    for (const auto& f : fields_of(record)) {
        if (f.optional && !in.contains(f.name)) continue;
        const json& v = field_in(in, where, f.name);
        std::visit(
            [&](auto member) {
                using T = std::remove_reference_t<decltype(record.*member)>;
                record.*member = value_from_json<T>(v, where, f.name, state);
            },
            f.member);
        if (f.problem)
            if (auto why = f.problem(record, state)) refuse(where, f.name, *why);
    }
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
    json j = value_to_json(s);
    j["schema"] = kSchema;
    return j.dump(2) + "\n";
}

BootState boot_state_from_text(const std::string& text, const std::string& where) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw UsageError(where + ": not JSON (" + std::string(e.what()) + ")");
    }
    if (!j.is_object()) refuse(where, "", "not an object");
    BootState s;
    if (value_from_json<std::uint64_t>(field_in(j, where, "schema"), where, "schema", s) != kSchema)
        refuse(where, "schema", "not " + std::to_string(kSchema) + ", this contest's");
    read_fields(j, where, s, s);
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
    if (!s.then.empty() && !path_below(folder, s.then[2]))
        bad("then", "'" + printable(s.then[2]) + "' is not a folder above " + folder.string());
    if (s.binary != boot_binary_path(folder).string())
        bad("binary", "'" + printable(s.binary) + "' is not " + boot_binary_path(folder).string() +
                          ", this run's copy of contest");
    for (std::size_t i = 0; i < s.labels.size(); ++i) {
        const fs::path result = s.labels[i].result;
        if (result != result.lexically_normal() || !path_below(result, folder))
            bad("labels[" + std::to_string(i) + "]: result",
                "'" + printable(s.labels[i].result) + "' is not below " + folder.string());
    }
    const std::pair<const char*, const std::string*> absolute[] = {{"workdir", &s.workdir},
                                                                   {"unit_root", &s.unit_root}};
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

BootPhase end_phase(const BootState& state) {
    const bool left = std::any_of(state.turns.begin(), state.turns.end(), [](const BootTurn& t) {
        return t.status == BootTurnStatus::pending;
    });
    return left ? BootPhase::stopped : BootPhase::done;
}

}  // namespace contest
