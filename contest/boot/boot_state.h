#pragma once
// `contest run --boot`: the run's state, the boot_run section of the run's
// journal in the results folder (.run-journal, sys/journal_file.h:
// the journal's config is run/plan/run_journal.h's), which with the config is
// all a contest started after a reboot knows of the run. The file is
// replaced whole and atomically before every reboot and after every turn,
// so that a crash or a power cut at any point leaves the last good state:
// the turn it was taking is then found started and not finished, and is
// recorded failed rather than measured twice.
//
// Read back as untrusted text: a regular file (no link followed), bounded,
// every field checked; a malformed file is a UsageError naming the field.
// Root runs what it names at every boot, so it is also read only from a
// folder nobody else can write (nor any folder above it), and every path in
// it must be this run's: contest's copy exactly <folder>/.boot/contest, the
// result files below the folder.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/sys/enum_names.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/journal_turns.h"

namespace contest {

// How a label's kernel is booted.
enum class BootMethod { kexec, grub, systemd_boot };
inline constexpr std::array<EnumName<BootMethod>, 3> kBootMethodNames{{
    {BootMethod::kexec, "kexec"},
    {BootMethod::grub, "grub"},
    {BootMethod::systemd_boot, "systemd-boot"},
}};
template <>
struct JsonWords<BootMethod> {
    static constexpr const auto& names = kBootMethodNames;
    static constexpr const char* what = "boot method";
};
BootMethod parse_boot_method(const std::string& name);  // UsageError when none
const char* boot_method_name(BootMethod method);

struct BootLabel {
    std::string label;
    std::string kernel;  // KERNEL as given: an image, a release or a boot entry
    std::string image;   // the kernel image (an entry's: as its loader has the path)
    std::string initrd;  // kexec: its initramfs ("" for none)
    // The command line and release the booted kernel must report: kexec's
    // whole line; an entry's own ("" when it holds a grub variable: not checked)
    std::string cmdline;
    std::string release;
    std::string result;  // its result file's path (made with its first run)
    // Why this label's kernel could not boot the next turn's (the first
    // time): its later turns go on to the next through the firmware.
    std::string cannot_boot_next;
    // KERNEL was TREE@REF: the release contest built and installed for it
    // (its lib/modules/ folder, removed at the run's end unless kept), and
    // its build's record (kbuild's KernelBuild, as JSON text). Both "" for
    // a kernel contest did not build; absent from the file then.
    std::string built_release, build;
};

// What a boot was, read after it came up.
struct BootSeen {
    std::string boot_id;   // /proc/sys/kernel/random/boot_id
    std::string expected;  // the label asked for, or "start" for the way back
    std::string release, cmdline;
    std::string at;       // UTC, when contest read it
    double up_s = 0;      // /proc/uptime then
    std::string settled;  // settle's word for the machine before the turn
    std::string outcome;  // measured, boot_failed: <why>, back, repeated
};

// Where the run is. The names are the state file's words.
enum class BootPhase {
    running,  // turns left
    // a reboot through the firmware asked for, whose kernel boots the next
    // turn's (the one running could not)
    detour,
    returning,  // the way back asked for
    done,
    stopped,  // a failure under --boot-on-failure stop, or the bound
    aborted,
};
inline constexpr std::array<EnumName<BootPhase>, 6> kBootPhaseNames{{
    {BootPhase::running, "running"},
    {BootPhase::detour, "detour"},
    {BootPhase::returning, "returning"},
    {BootPhase::done, "done"},
    {BootPhase::stopped, "stopped"},
    {BootPhase::aborted, "aborted"},
}};
template <>
struct JsonWords<BootPhase> {
    static constexpr const auto& names = kBootPhaseNames;
    static constexpr const char* what = "phase";
};
constexpr const char* boot_phase_name(BootPhase phase) {
    return name_in(kBootPhaseNames, phase).data();
}

struct BootState {
    BootPhase phase = BootPhase::running;
    BootMethod method = BootMethod::kexec;
    // The run's workdir as its journal has it (absolute): the unit keeps it
    // root's. What the run is (its config, its seed) is its journal's
    // (run/plan/run_journal.h, beside the state): the state holds the boots.
    std::string workdir;
    std::string started_at;
    std::string start_release, start_cmdline;  // the kernel the run started in
    std::string binary;                        // the copy of contest the unit runs
    std::string unit_root;                     // where the unit was installed ("/": the machine's)
    // The run's labels, which its turns (the journal's, sys/journal_turns.h)
    // name by index.
    std::vector<BootLabel> labels;
    unsigned boots_asked = 0;  // reboots contest asked for, counted before each
    unsigned boot_max = 0;     // at most this many
    bool stop_on_failure = false;
    bool keep_built = false;  // --boot-keep-built: the releases contest built stay installed
    std::vector<BootSeen> boots;
    std::string note;  // why it stopped, when it did
    // The bisection whose batch this run is (contest bisect --boot's part):
    // its folder, absolute, above the state's, whose journal the run's last
    // step hands over to once the run is done or stopped (never after
    // --boot-abort; drive/journal_continue.h). Empty: a run of its own.
    // Absent from the file then. (A state of an earlier contest names it in
    // `then`, the words `bisect --continue FOLDER`: read as this folder.)
    std::string owner;

    bool finished() const {
        return phase == BootPhase::done || phase == BootPhase::stopped ||
               phase == BootPhase::aborted;
    }
};

// How a run ends once no more turns will be taken: done when every turn
// was (measured or failed), stopped when some were left (the bound).
BootPhase end_phase(const JournalTurns& turns);

// The journal's boot_run section (sys/journal_file.h): the boot layer's
// codec, both directions walking one fields() record each (boot_state.cpp,
// on sys/json_record.h), so a field is named once. Reading a journal
// without the section is a UsageError saying it is no --boot run's. (The
// journal's schema is the file's: a journal of another contest is refused
// in one line before its sections are read.)
extern const JournalSection<BootState> kBootStateSection;
nlohmann::json boot_state_json(const BootState& state);
// UsageError naming `where` and the field when j is not a boot state.
BootState boot_state_from_json(const nlohmann::json& j, const std::string& where);
// The section alone as text, and read from text (its tests).
std::string boot_state_text(const BootState& state);
BootState boot_state_from_text(const std::string& text, const std::string& where);
// A --boot run as its journal holds it: the boot facts (the boot_run
// section) and the run's plan of turns (the journal's top level), read
// from one read of the file.
struct BootRunFile {
    BootState state;
    JournalTurns turns;
};

// The state and the turns in a journal's text (sys/journal_file.h): its
// schema checked, its boot_run section and its turns read (each turn's
// label one of the state's); a UsageError naming `where` and the field
// otherwise (a journal without boot_run is no --boot run's). Its paths are
// not checked here (check_state_paths).
BootRunFile boot_run_from_journal_text(const std::string& text, const std::string& where);
BootState boot_state_from_journal_text(const std::string& text, const std::string& where);
// The same of a journal read (sys/journal_file.h).
BootRunFile boot_run_of(const JournalFile& journal);
// The journal text of those sections alone (no config): the boot_run
// section, the turns and the schema (its tests and its fuzz target).
std::string boot_run_text(const BootRunFile& run);

// UsageError naming the field when a path of the state is not where the run
// in folder keeps its files (see above).
void check_state_paths(const BootState& state, const std::filesystem::path& folder,
                       const std::string& where);

// contest's copy that the unit runs, for the run whose state is in folder.
std::filesystem::path boot_binary_path(const std::filesystem::path& folder);

// EnvironmentError when the state at path (absolute), or its folder or one
// above it, could be changed by anyone but root (or this user).
void check_state_place(const std::filesystem::path& path);

// Reads the state and the turns in the journal at path (absolute): a
// regular file (not a link) of at most kMaxRunJournalBytes, in a folder
// that nobody but root can change (nor one above it; EnvironmentError
// otherwise, or when it cannot be read), of this contest's schema, read as
// boot_run_from_journal_text reads it, its paths checked
// (check_state_paths). The rest of the journal is its config, which
// run/plan/run_journal.h reads.
BootRunFile read_boot_run(const std::filesystem::path& path);
// What read_boot_run checks of a state once read, for a state the run's
// journal reader read (a --boot step reads its journal once, run/places/boot/boot_run.h):
// its paths where the run in path's folder keeps its files, and its labels'
// result files root's alone.
void check_boot_run(const BootState& state, const std::filesystem::path& path);
BootState read_boot_state(const std::filesystem::path& path);
// The journal at path with its boot_run section and its turns replaced,
// in one atomic write under the journal's lock (JournalFile::update: a
// --boot step and a --boot-abort at once lose neither's change); the rest
// of the journal kept as it is.
void write_boot_run(const std::filesystem::path& path, const BootState& state,
                    const JournalTurns& turns);
// The same with the boot_run section alone replaced (the turns kept).
void write_boot_state(const std::filesystem::path& path, const BootState& state);

}  // namespace contest
