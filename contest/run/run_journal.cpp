#include "contest/run/run_journal.h"

#include "contest/run/places.h"
#include "contest/run/run_plan.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {

RunJournal read_run_journal(const std::filesystem::path& path_in) {
    const std::filesystem::path path = path_in.lexically_normal();
    const std::string where = printable(path.string());
    RunJournal journal = run_journal_from_json(read_journal_json(path, "the run's journal"), where);
    // The config checked as a start checks its own, before anything runs on it.
    try {
        check_run_options(journal.config);
        check_place(journal.config);
    } catch (const UsageError& e) {
        throw UsageError(where + ": config: " + e.what());
    }
    return journal;
}

void write_run_journal(const std::filesystem::path& path, const RunJournal& journal) {
    write_file_atomically(path, run_journal_text(journal));
}

}  // namespace contest
