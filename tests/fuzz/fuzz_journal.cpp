// libFuzzer: the journal's one reader (sys/journal_file.h) on arbitrary
// bytes, and every section's over what it read: the run's (its config, its
// plan, its files, its boot facts), the plan's, the files', the boot run's,
// the boot options' and the bisection's. A --boot run's journal lives in its results folder,
// a bisection's in its own, and root runs what they say after every reboot.
// Any bytes either read or are refused with a UsageError; a section read
// once is written into a journal and read back to the same text.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "contest/bisect/bisect_state.h"
#include "contest/boot/boot_options.h"
#include "contest/boot/boot_state.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/journal_turns.h"

namespace {

using contest::JournalFile;

// The section read from `journal`, put alone into a new journal, read from
// that one's text and put again: the same text both times.
template <typename T>
void section_read_back(const JournalFile& journal, const contest::JournalSection<T>& section) {
    T value;
    try {
        value = journal.get(section);
    } catch (const contest::UsageError&) {
        return;
    }
    JournalFile written{std::filesystem::path()};
    try {
        written.put(section, value);
    } catch (const contest::UsageError&) {
        return;  // text that is not UTF-8 is refused on the way out, never changed
    }
    const std::string text = written.text();
    JournalFile again{std::filesystem::path()};
    again.put(section, JournalFile::from_text(text, "written").get(section));
    if (again.text() != text) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::optional<JournalFile> journal;
    try {
        journal = JournalFile::from_text(text, "fuzz");
    } catch (const contest::UsageError&) {
        return 0;
    }
    section_read_back(*journal, contest::kPlanSection);
    section_read_back(*journal, contest::kResultsSection);
    section_read_back(*journal, contest::kBootStateSection);
    section_read_back(*journal, contest::kBootOptionsSection);
    section_read_back(*journal, contest::bisect::kBisectionStateSection);
    section_read_back(*journal, contest::kRunSection);
    // The run, and the boot run, as their readers take them: each section
    // they hold, checked together.
    std::optional<contest::RunJournal> run;
    try {
        run = contest::run_journal_of(*journal);
    } catch (const contest::UsageError&) {
    }
    std::string written;
    try {
        if (run) written = contest::run_journal_text(*run);
    } catch (const contest::UsageError&) {
        written.clear();  // text that is not UTF-8 is refused on the way out
    }
    if (!written.empty() &&
        contest::run_journal_text(contest::run_journal_from_text(written, "written")) != written)
        std::abort();
    std::optional<contest::BootRunFile> boot;
    try {
        boot = contest::boot_run_of(*journal);
    } catch (const contest::UsageError&) {
    }
    if (boot) {
        written = contest::boot_run_text(*boot);
        if (contest::boot_run_text(contest::boot_run_from_journal_text(written, "written")) !=
            written)
            std::abort();
    }
    return 0;
}
