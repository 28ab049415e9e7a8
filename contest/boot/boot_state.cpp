#include "contest/boot/boot_state.h"

#include <optional>

#include <nlohmann/json.hpp>

#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/journal_turns.h"
#include "contest/sys/json_record.h"
#include "contest/sys/path_below.h"
#include "contest/sys/text.h"
#include "contest/sys/trusted_folder.h"

namespace contest {
namespace {

// A release names a folder in lib/modules/: one name, nothing above it.
std::optional<std::string> bad_built_release(const std::string& r) {
    if (r.find('/') == std::string::npos && r != "." && r != ".." &&
        r.find('\0') == std::string::npos)
        return std::nullopt;
    return "not a release name (a '/', '.' or '..')";
}

// The bisection that owns the run: root takes its journal on at the
// run's end, so only ever an absolute folder (above this run's:
// check_state_paths).
std::optional<std::string> bad_owner(const std::string& owner) {
    if (owner.empty()) return std::nullopt;
    const std::filesystem::path folder = owner;
    if (!folder.is_absolute() || folder != folder.lexically_normal())
        return "'" + printable(owner) + "' is not an absolute path";
    return std::nullopt;
}

// An earlier contest's `then`: only ever `bisect --continue FOLDER`, FOLDER
// the owner's folder.
std::optional<std::string> owner_of_then(const std::vector<std::string>& then, std::string& owner) {
    if (then.empty()) return std::nullopt;
    if (then.size() != 3 || then[0] != "bisect" || then[1] != "--continue")
        return "not 'bisect --continue FOLDER'";
    owner = then[2];
    return std::nullopt;
}

}  // namespace

// The records of the state, each field named once (sys/json_record.h):
// the writer and the untrusted reader both walk them. A field's own check
// follows it, so a refusal names the first bad field in the file's order
// of reading. The run's turns are the journal's (sys/journal_turns.h).

template <typename V, RecordOf<BootLabel> R>
void fields(V& v, R& l) {
    v("label", l.label);
    if constexpr (V::reading)
        if (auto why = label_problem(l.label)) v.refuse("label", *why);
    v("kernel", l.kernel);
    v("image", l.image);
    v("initrd", l.initrd);
    v("cmdline", l.cmdline);
    v("release", l.release);
    v("result", l.result);
    v("cannot_boot_next", l.cannot_boot_next);
    v.absent_when_default("built_release", l.built_release);
    if constexpr (V::reading)
        if (auto why = bad_built_release(l.built_release)) v.refuse("built_release", *why);
    v.absent_when_default("build", l.build);
}

template <typename V, RecordOf<BootSeen> R>
void fields(V& v, R& b) {
    v("boot_id", b.boot_id);
    v("expected", b.expected);
    v("release", b.release);
    v("cmdline", b.cmdline);
    v("at", b.at);
    v("up_s", b.up_s);
    v("settled", b.settled);
    v("outcome", b.outcome);
}

// schema is not a member: take_schema checks it.
template <typename V, RecordOf<BootState> R>
void fields(V& v, R& s) {
    v("phase", s.phase);
    v("method", s.method);
    v("workdir", s.workdir);
    v("started_at", s.started_at);
    v("start_release", s.start_release);
    v("start_cmdline", s.start_cmdline);
    v("binary", s.binary);
    v("unit_root", s.unit_root);
    v("labels", s.labels);
    v("boots_asked", s.boots_asked);
    v("boot_max", s.boot_max);
    // A step asks for no reboot past the bound (boot_steps.cpp: the turns
    // end at it, the way back is the last).
    if constexpr (V::reading)
        if (s.boots_asked > s.boot_max)
            v.refuse("boots_asked", std::to_string(s.boots_asked) + " is more than boot_max " +
                                        std::to_string(s.boot_max));
    v("stop_on_failure", s.stop_on_failure);
    v("boots", s.boots);
    v("note", s.note);
    v.absent_when_default("keep_built", s.keep_built);
    v.absent_when_default("owner", s.owner);
    if constexpr (V::reading) {
        std::vector<std::string> then;
        v.absent_when_default("then", then);
        if (auto why = owner_of_then(then, s.owner)) v.refuse("then", *why);
        if (auto why = bad_owner(s.owner)) v.refuse(then.empty() ? "owner" : "then", *why);
    }
}

BootMethod parse_boot_method(const std::string& name) {
    if (auto m = value_in(kBootMethodNames, name)) return *m;
    throw UsageError("--boot-method '" + printable(name) +
                     "': expected kexec, grub or systemd-boot");
}

const char* boot_method_name(BootMethod method) {
    return name_in(kBootMethodNames, method).data();
}

// Text from the machine (a command line, an entry's path) is written as
// valid UTF-8, whatever it held: a step must be able to save the state.
nlohmann::json boot_state_json(const BootState& s) {
    return RecordWriter::json_of(s, "the boot run's state", BadText::replaced);
}

BootState boot_state_from_json(const nlohmann::json& j, const std::string& where) {
    BootState s;
    RecordReader::read(j, where, s);
    return s;
}

namespace {

nlohmann::json boot_section_json(const BootState& s) {
    return {{kBootRunSection, boot_state_json(s)}};
}

BootState boot_section_from_json(const nlohmann::json& fields, const std::string& where) {
    const auto section = fields.find(kBootRunSection);
    if (section == fields.end())
        throw UsageError(where + ": " + kBootRunSection +
                         ": missing (the journal of a run that is not a --boot run)");
    return boot_state_from_json(*section, where + ": " + kBootRunSection);
}

}  // namespace

const JournalSection<BootState> kBootStateSection{
    {kBootRunSection}, boot_section_json, boot_section_from_json};

std::string boot_state_text(const BootState& s) {
    return boot_state_json(s).dump(2) + "\n";
}

BootState boot_state_from_text(const std::string& text, const std::string& where) {
    return boot_state_from_json(journal_section_json_from_text(text, where), where);
}

BootRunFile boot_run_of(const JournalFile& journal) {
    BootRunFile run;
    run.state = journal.get(kBootStateSection);
    run.turns = journal_turns_of(journal, run.state.labels.size());
    return run;
}

BootRunFile boot_run_from_journal_text(const std::string& text, const std::string& where) {
    return boot_run_of(JournalFile::from_text(text, where));
}

BootState boot_state_from_journal_text(const std::string& text, const std::string& where) {
    return boot_run_from_journal_text(text, where).state;
}

std::string boot_run_text(const BootRunFile& run) {
    JournalFile journal{std::filesystem::path()};
    journal.put(kBootStateSection, run.state);
    journal.put(kPlanSection, run.turns);
    return journal.text();
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
    if (!s.owner.empty() && !path_below(folder, s.owner))
        bad("owner", "'" + printable(s.owner) + "' is not a folder above " + folder.string());
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

BootRunFile read_boot_run(const std::filesystem::path& path_in) {
    const std::filesystem::path path = path_in.lexically_normal();
    // Before anything is read: whoever could write the folder could have
    // written the state, which root then runs.
    check_state_place(path);
    BootRunFile run = boot_run_of(JournalFile::read(path, "the boot run's state"));
    check_boot_run(run.state, path);
    return run;
}

void check_boot_run(const BootState& state, const std::filesystem::path& path_in) {
    const std::filesystem::path path = path_in.lexically_normal();
    check_state_paths(state, path.parent_path(), printable(path.string()) + ": boot_run");
    for (const auto& label : state.labels)
        if (auto why = file_open_to_others(label.result))
            throw EnvironmentError("the boot run's result file " + printable(label.result) + ": " +
                                   *why + ": refusing it, root writes it");
}

BootState read_boot_state(const std::filesystem::path& path) {
    return read_boot_run(path).state;
}

void write_boot_run(const std::filesystem::path& path, const BootState& state,
                    const JournalTurns& turns) {
    JournalFile::update(path, "the boot run's state", [&](JournalFile& journal) {
        journal.put(kBootStateSection, state);
        journal.put(kPlanSection, turns);
    });
}

void write_boot_state(const std::filesystem::path& path, const BootState& state) {
    JournalFile::update(path, "the boot run's state",
                        [&](JournalFile& journal) { journal.put(kBootStateSection, state); });
}

BootPhase end_phase(const JournalTurns& turns) {
    return turns.any_pending() ? BootPhase::stopped : BootPhase::done;
}

}  // namespace contest
