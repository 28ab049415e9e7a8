#pragma once
// A run's journal file: one versioned JSON object of sections, and the one
// owner of the file's life (JournalFile): the only code that opens it,
// parses it, locks it and writes it. Each section is a layer's: the layer
// gives its codec (a JournalSection: the top-level fields it holds, to and
// from JSON, checked field by field), and this file knows none of their
// types. The sections: the run's config and start (run/plan/run_journal.h), its
// plan of turns (sys/journal_turns.h), a --boot run's boot facts and the
// boots it saw (boot/boot_state.h, `boot_run`), how a bisection's --boot
// batches boot (boot/boot_options.h, `boot`) and a bisection's state
// (bisect/bisect_state.h, `bisection`). One file a run, replaced whole and
// atomically once a step, so a crash leaves the last step's file or the
// next one's, never two files that disagree.
//
// Its name: a run's journal is NAME.run-journal, NAME the run's first result
// file's (STAMP.run-journal beside STAMP.json, a run on this host or in
// guests), nothing for a run that owns its folder (.run-journal: a --boot
// run's results folder, a bisection's folder) and `turn` for a guest's
// turn (turn.run-journal in the share the guest reads). A run gets no
// folder of its own: its files stay where every contest put them, and
// --resume takes them there. The names of earlier contests are read still
// (.run-journal.json in a folder, turn.json by --journal).
//
// Read as untrusted text: a regular file (no link followed), bounded, JSON,
// of this contest's schema (take_schema, sys/json_record.h), of no field
// outside the sections'; each section is then checked by its owner.
// Changed under a lock (JournalFile::update): the journal read, changed
// and written while its folder is locked (flock), so that two contests
// changing one journal at once (a --boot step and --boot-abort, a
// bisection and its part) each see the other's change and lose none. A
// reader needs no lock: what it reads is one whole write.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace contest {

// The journal's name extension, and a run's that owns its folder.
inline constexpr const char* kJournalExtension = ".run-journal";
inline constexpr const char* kRunJournalName = ".run-journal";
// A folder's journal as contests before one name wrote it: read, and
// written under that name while the run it is goes on.
inline constexpr const char* kOldFolderJournalName = ".run-journal.json";
// The sections other layers than the run's own read and write.
inline constexpr const char* kBootRunSection = "boot_run";
inline constexpr const char* kBootOptionsField = "boot";
inline constexpr const char* kBisectionSection = "bisection";
// Every top-level field a journal may hold (its schema apart): each one
// section's (see above). A field outside them is refused at the read.
inline constexpr const char* kJournalFields[] = {
    "started_at",      "config",    "results",  // the run's (run/plan/run_journal.h)
    "turns",           "next_turn",             // the plan (sys/journal_turns.h)
    kBootRunSection,                            // boot/boot_state.h
    kBootOptionsField,                          // boot/boot_options.h (the run's before)
    kBisectionSection,                          // bisect/bisect_state.h
};
// 2: a --boot run's state is the journal's boot_run section (it was a
// file of its own, .boot-state.json, beside a journal of schema 1).
// 3: config.vm.duet and config.start_barrier (--duet).
// 4: the turns and next_turn at the top level (they were boot_run's).
// 5: results, each label's file; config.resume a file per label (a run of
// several labels, --vary's or --kernel's, is resumed from its journal).
// (Its name, .run-journal for .run-journal.json, changed no field.)
// A journal of another schema is refused in one line naming both
// (take_schema), not read: a --boot run under way is stepped by its own
// copy of contest (results/.boot/contest), which wrote it, so only a
// contest installed over it meanwhile and run by hand meets one.
inline constexpr int kRunJournalSchema = 5;
inline constexpr std::uintmax_t kMaxRunJournalBytes = 4u << 20;

// A layer's section: the top-level fields it holds (some of
// kJournalFields), and its codec. from_json is given the object of those
// fields the journal holds (perhaps none), and refuses what is not one in
// a UsageError naming `where` and the field; to_json gives the fields to
// write (a field it leaves out is absent from the file).
template <typename T>
struct JournalSection {
    std::vector<const char*> fields;
    nlohmann::json (*to_json)(const T&);
    T (*from_json)(const nlohmann::json& fields, const std::string& where);
};

// The journal of a folder's own run (a --boot run's, a bisection's): its
// name's, or its name of an earlier contest when only that one is there.
std::filesystem::path folder_journal_path(const std::filesystem::path& folder);
// Whether something is at folder_journal_path(folder) (not followed).
bool has_folder_journal(const std::filesystem::path& folder);

// A section's JSON alone, from its text (a section's own tests read it so):
// UsageError naming `where` when it is not JSON. Parsed here, as a whole
// journal is, so that no other code parses a journal's JSON.
nlohmann::json journal_section_json_from_text(const std::string& text, const std::string& where);

class JournalFile {
  public:
    // Whether JournalFile::update makes a journal that is not there.
    enum class IfAbsent { refused, made };

    // An empty journal (no section) that write() puts at path.
    explicit JournalFile(std::filesystem::path path);

    // The journal at path: a regular file (not a link) of at most
    // kMaxRunJournalBytes, read as from_text reads it. A path naming
    // anything else, or nothing, is a UsageError naming `what` and the
    // path; a file that cannot be read (permission, I/O) an
    // EnvironmentError.
    static JournalFile read(const std::filesystem::path& path, const std::string& what);
    // A journal's text: UsageError naming `where` when it is not JSON, not
    // an object, of another schema, or holds a field of no section.
    static JournalFile from_text(const std::string& text, const std::string& where);

    // Read-lock-modify-write: the journal at path read with its folder
    // locked, `change` applied to it, and written (atomically) before the
    // lock is let go. Absent: refused as read() refuses it, or (made) an
    // empty journal changed. What `change` throws leaves the file as it was.
    static void update(const std::filesystem::path& path, const std::string& what,
                       const std::function<void(JournalFile&)>& change,
                       IfAbsent absent = IfAbsent::refused);

    const std::filesystem::path& path() const { return path_; }
    // The path as a message names it.
    const std::string& where() const { return where_; }

    // Whether the journal holds some field of the section.
    template <typename T>
    bool has(const JournalSection<T>& section) const {
        return holds_any(section.fields);
    }
    // The section as its codec reads it (of no field held: of none).
    template <typename T>
    T get(const JournalSection<T>& section) const {
        return section.from_json(fields_of(section.fields), where_);
    }
    // The section, when the journal holds some field of it.
    template <typename T>
    std::optional<T> find(const JournalSection<T>& section) const {
        if (!has(section)) return std::nullopt;
        return get(section);
    }
    // The section's fields replaced by value's (the other sections kept).
    template <typename T>
    void put(const JournalSection<T>& section, const std::type_identity_t<T>& value) {
        replace_fields(section.fields, section.to_json(value));
    }
    // The section's fields taken out.
    template <typename T>
    void erase(const JournalSection<T>& section) {
        replace_fields(section.fields, nlohmann::json::object());
    }

    // The journal's text, its schema added.
    std::string text() const;
    // Written at its path, replacing what is there atomically
    // (EnvironmentError when it cannot be). A journal changed by others
    // too is written by update(), under its lock.
    void write() const;
    // Written at its path when nothing is there: false, and nothing
    // written, when something is (what a run claiming a name needs).
    bool create() const;

  private:
    JournalFile(std::filesystem::path path, nlohmann::json fields);
    bool holds_any(const std::vector<const char*>& fields) const;
    nlohmann::json fields_of(const std::vector<const char*>& fields) const;
    void replace_fields(const std::vector<const char*>& fields, const nlohmann::json& value);

    std::filesystem::path path_;
    std::string where_;
    nlohmann::json fields_ = nlohmann::json::object();  // without the schema
};

}  // namespace contest
