// libFuzzer: the run journal's reader on arbitrary bytes (a --boot run's
// journal lives in its results folder, and root runs what it says after
// every reboot). Any bytes either read as a journal or are refused with a
// UsageError; a journal read once is written and read back to the same text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "contest/run/run_journal.h"
#include "contest/sys/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    contest::RunJournal journal;
    try {
        journal = contest::run_journal_from_text(text, "fuzz.json");
    } catch (const contest::UsageError&) {
        return 0;
    }
    std::string written;
    try {
        written = contest::run_journal_text(journal);
    } catch (const contest::UsageError&) {
        return 0;  // text that is not UTF-8 is refused on the way out, never changed
    }
    if (contest::run_journal_text(contest::run_journal_from_text(written, "written.json")) !=
        written)
        std::abort();
    return 0;
}
