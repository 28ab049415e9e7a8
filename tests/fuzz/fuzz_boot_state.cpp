// libFuzzer: the --boot run's state reader on arbitrary bytes (the state
// lives in a results folder, where anyone who can write it can plant one):
// the boot_run section alone, and a whole journal as the boot layer reads
// it (its schema, then its section and the run's turns). Any bytes either
// read as a state or are refused with a UsageError; a state read once is
// written and read back to the same text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "contest/boot/boot_state.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"

namespace {

void written_back_the_same(const contest::BootRunFile& run) {
    const std::string section = contest::boot_state_text(run.state);
    if (contest::boot_state_text(contest::boot_state_from_text(section, "written.json")) != section)
        std::abort();
    const std::string journal = contest::boot_run_text(run);
    if (contest::boot_run_text(contest::boot_run_from_journal_text(journal, "journal.json")) !=
        journal)
        std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const bool whole : {false, true}) {
        contest::BootRunFile run;
        try {
            if (whole)
                run = contest::boot_run_from_journal_text(text, "fuzz.json");
            else
                run.state = contest::boot_state_from_text(text, "fuzz.json");
        } catch (const contest::UsageError&) {
            continue;
        }
        written_back_the_same(run);
    }
    return 0;
}
