#pragma once
// The driver of a run kept in its journal (issue 56): a run on this host
// or in guests it boots (a bisection's batches among them) writes its journal (run_journal.h: the
// config resolved at the start, its seed drawn, and its plan of turns) beside its first result file
// before its first run, and each turn is marked started and done as the one loop (run_loop.h) takes
// it; `contest run --resume` opens that journal and advances it the same way, the turns not done
// taken into the same file. Nothing of the run is parsed again after its start: no command word, no
// --config file, nothing relative to a folder.
//
// The journal is STAMP.run-journal beside STAMP.json (result_writer.h),
// claimed with the file's name (made exclusively: two runs started in one
// second into one folder take two names), and kept as the run's record
// when it ends; --resume of a complete file is refused.
#include <filesystem>
#include <optional>

#include "contest/run/plan/run_config.h"
#include "contest/run/plan/run_journal.h"
#include "contest/run/record/run_outcome.h"
#include "contest/sys/progress.h"

namespace contest {

// What a place did with the journal's next turn, told to the driver.
enum class TurnTaken {
    taken,   // marked (done, boot_failed): the driver goes on to the next
    yields,  // this contest stops here (a reboot armed, or the run ended)
    ends,    // no further turn taken in this contest: the place's end now
};

// A place's hooks around the driver's loop: what it does with the next
// turn, and its end once no turn is left (or it said `ends`). The host's
// takes every turn left in one call to the one loop (run_loop.h); the
// reboot place's (boot_steps.h) takes the turn this boot is for and yields
// once the next turn's kernel is armed.
class JournalPlace {
  public:
    virtual ~JournalPlace() = default;
    virtual TurnTaken take_next() = 0;
    virtual void end() = 0;
};

// The one driver's loop over a journal's turns: the next turn
// (turns.next) given to the place until none is left or the place yields,
// then the place's end (not after it yields). A turn said taken must move
// `next` on (JournalTurns::mark): std::logic_error otherwise.
void drive_turns(const JournalTurns& turns, JournalPlace& place);

// A run's journal opened to be advanced (--resume): where it is, and what
// it holds (its results: each label's file it continues).
struct OpenedJournal {
    std::filesystem::path path;
    RunJournal journal;
};

// --resume X, X the interrupted result file (any label's) or its journal:
// the journal read as untrusted (read_run_journal: a regular file, no link,
// bounded, each field checked; each label's file in its results folder: the
// first label's the one beside the journal, unless the journal was given to
// the run by its caller (its name not the first file's), whose results it
// names). A UsageError in one line when X is neither, when the file has no journal
// beside it (a file of a contest before journals), or when the journal
// plans no turns this contest takes (a --boot run's, a guest's turn).
OpenedJournal open_run_journal(const std::filesystem::path& given);

// The driver of a run on this host (its place's hooks around drive_turns): its plan made (what a
// killed contest left put right first), its journal written before the first run (a new run's, made
// from the plan) or read (`opened`, --resume: the turns not done, less the runs the file holds
// already), then the turns taken by the one loop, each marked in the journal as it starts and ends.
// `config` is the run's (a resumed one's is the journal's, with its resume set to the file); its
// workdirs are opened by the caller.
// A guest's turn (run --journal) keeps none: its host's journal is the run's.
// `given`: a new run's journal is that file, made by the run's caller
// (contest run --journal FILE of guests): its turns planned into it and its
// result files named in it (claimed by no journal beside them: the results
// folder is the caller's), its other sections kept.
enum class JournalKept { yes, no };
RunOutcome advance_run(const RunConfig& config, std::optional<OpenedJournal> opened,
                       Progress& progress, JournalKept keep = JournalKept::yes,
                       const std::filesystem::path& given = {});

}  // namespace contest
