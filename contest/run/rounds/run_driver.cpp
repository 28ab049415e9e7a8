#include "contest/run/rounds/run_driver.h"

#include <algorithm>
#include <stdexcept>

#include "contest/observe/sysinfo.h"
#include "contest/run/plan/resume.h"
#include "contest/run/plan/run_plan.h"
#include "contest/run/record/result_writer.h"
#include "contest/run/rounds/leftovers.h"
#include "contest/run/rounds/run_loop.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"
#include "contest/sys/utc_timestamp.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// The most names a new run tries for its journal when others take them
// first (two runs started in one second into one folder take two).
constexpr int kMaxClaims = 100;

// The rounds still to take, made of the journal's turns (the plan is
// written down once, there; each turn taken names its journal turn, which
// the round's mark marks): the turns not done, each less the runs the
// resumed file holds already (a turn cut short by a kill). A turn whose
// runs the file holds all is marked done (its end was not written).
std::vector<PlannedRound> rounds_of(JournalTurns& turns, const RunPlan& plan,
                                    const std::string& where) {
    check_turn_labels(turns, plan.labels.size(), where);
    std::vector<PlannedRound> rounds;
    for (std::size_t i = 0; i < turns.list.size(); ++i) {
        JournalTurn& turn = turns.list[i];
        if (turn.status == TurnStatus::done) continue;
        const LabelTurn planned =
            label_turn_of(turn, plan, where + ": turns[" + std::to_string(i) + "]");
        LabelTurn taken{turn.label, {}, i};
        for (const std::size_t load : planned.loads)
            if (plan.resumed.empty() || !plan.resumed[turn.label] ||
                !already_done(*plan.resumed[turn.label], plan.load_names[load], turn.round))
                taken.loads.push_back(load);
        if (taken.loads.empty()) {
            turn.status = TurnStatus::done;  // next: set below, once every turn is seen
            continue;
        }
        if (rounds.empty() || rounds.back().index != turn.round) rounds.push_back({turn.round, {}});
        rounds.back().turns.push_back(std::move(taken));
    }
    turns.next = turns.first_not_taken();
    return rounds;
}

// The run's journal as the driver keeps it: made (a new run's) or read
// (--resume), written again at each mark. A write that fails stops the run
// as a failed save of its file does (SaveFailed: what finished is kept).
class KeptJournal {
  public:
    KeptJournal(fs::path path, RunJournal journal)
        : path_(std::move(path)), journal_(std::move(journal)) {}

    // A new run's file of label v, recorded in the journal (written again
    // at the first mark, before any run). The first's name is claimed by
    // making the journal beside it (exclusively: a name another run
    // claimed first is skipped).
    fs::path name_file(std::size_t v, const fs::path& results_dir, const std::string& label) {
        if (!path_.empty()) {
            // The journal its caller gave: each file named in it at once.
            if (v == 0) journal_.results.clear();
            journal_.results.push_back(new_result_path(results_dir, label, journal_.started_at));
            save();
            return journal_.results.back();
        }
        if (v > 0) {
            journal_.results.push_back(new_result_path(results_dir, label, journal_.started_at));
            return journal_.results.back();
        }
        for (int i = 0; i < kMaxClaims; ++i) {
            const fs::path result = new_result_path(results_dir, label, journal_.started_at);
            journal_.results = {result};
            if (create_run_journal(run_journal_beside(result), journal_)) {
                path_ = run_journal_beside(result);
                return result;
            }
        }
        throw EnvironmentError("cannot name a result file in " +
                               printable((results_dir / label).string()) + ": " +
                               std::to_string(kMaxClaims) + " names taken by other runs");
    }

    // The round's turns marked started, or done once its last run is
    // saved: each its own journal turn (rounds_of).
    void mark(const PlannedRound& round, bool done) {
        JournalTurns& turns = journal_.turns;
        for (const LabelTurn& taken : round.turns)
            turns.mark(taken.turn, done ? TurnStatus::done : TurnStatus::started);
        // A round of several turns (--vary's labels) started: its first.
        turns.next = turns.first_not_taken();
        save();
    }

    const RunJournal& journal() const { return journal_; }

    void save() const {
        try {
            write_run_journal(path_, journal_);
        } catch (const EnvironmentError& e) {
            throw SaveFailed(std::string("the run's journal: ") + e.what());
        }
    }

  private:
    fs::path path_;
    RunJournal journal_;
};

// The hooks of a place whose turns this contest takes (the host, or the
// guests it boots): every turn left, by one call to the one loop (one
// backend, the knobs set once), each turn marked in the journal as it
// starts and ends; what it leaves (--runs auto had enough, a save failed)
// is left. A resumed run whose turns are all done still goes through the
// loop once, at its end: its files are completed there.
class TakenHere final : public JournalPlace {
  public:
    TakenHere(const RunConfig& config, RunPlan& plan, const LabelFiles& files, Progress& progress)
        : config_(config), plan_(plan), files_(files), progress_(progress) {}

    TurnTaken take_next() override {
        take();
        return TurnTaken::ends;
    }
    void end() override {
        if (!outcome_) take();
    }
    RunOutcome outcome() { return std::move(*outcome_); }

  private:
    void take() { outcome_ = take_turns(config_, plan_, files_, progress_); }

    const RunConfig& config_;
    RunPlan& plan_;
    const LabelFiles& files_;
    Progress& progress_;
    std::optional<RunOutcome> outcome_;
};

// The journal of result file `file`: beside it (the run's first label's),
// or, for another label's file, beside the first label's file in a folder
// next to it (the same name), when that journal names `file`. The path
// beside `file` when none is found.
fs::path journal_of_file(const fs::path& file) {
    const fs::path beside = run_journal_beside(file);
    std::error_code ec;
    if (fs::exists(fs::symlink_status(beside, ec)) || !file.has_parent_path()) return beside;
    const fs::path results = file.parent_path().parent_path();
    const fs::path named = fs::absolute(file, ec).lexically_normal();
    for (const auto& folder : fs::directory_iterator(results.empty() ? "." : results, ec)) {
        if (!folder.is_directory(ec) || folder.is_symlink(ec)) continue;
        const fs::path candidate = folder.path() / beside.filename();
        if (!fs::is_regular_file(fs::symlink_status(candidate, ec))) continue;
        try {
            const RunJournal j = read_run_journal(candidate);
            if (std::find(j.results.begin(), j.results.end(), named) != j.results.end())
                return candidate;
        } catch (const std::exception&) {
            // another run's, or no journal: not this file's
        }
    }
    return beside;
}

}  // namespace

void drive_turns(const JournalTurns& turns, JournalPlace& place) {
    while (turns.next < turns.list.size()) {
        const std::size_t next = turns.next;
        const TurnTaken taken = place.take_next();
        if (taken == TurnTaken::yields) return;
        if (taken == TurnTaken::ends) break;
        if (turns.next <= next)
            throw std::logic_error("drive_turns: turn " + std::to_string(next) +
                                   " said taken, and the journal's next turn did not move on");
    }
    place.end();
}

OpenedJournal open_run_journal(const fs::path& given) {
    const fs::path x = given.lexically_normal();
    const std::string named = "--resume " + printable(given.string());
    OpenedJournal opened;
    const bool journal_given = x.extension() == kJournalExtension;
    opened.path = journal_given ? x : journal_of_file(x);
    std::error_code ec;
    if (!journal_given && !fs::exists(fs::symlink_status(opened.path, ec))) {
        // What the file is says why first: not a result, or complete.
        if (read_result_file(x).complete)
            throw UsageError(named + ": this result file is complete; there is nothing to resume");
        throw UsageError(named + ": it has no run journal beside it (" +
                         printable(opened.path.filename().string()) +
                         "): a file of a contest before run journals cannot be resumed; run again");
    }
    opened.journal = read_run_journal(opened.path);
    RunJournal& j = opened.journal;
    // A --boot run steps itself; a guest's turn and a bisection's batch
    // config plan no turns (their run's journal is elsewhere).
    if (j.boot_run || j.boot)
        throw UsageError(named +
                         ": the journal is a --boot run's, which goes on by itself after "
                         "each reboot (contest run --boot-status)");
    if (j.turns.list.empty() || j.results.empty())
        throw UsageError(named +
                         ": the journal plans no turns of its own (a guest's turn or a "
                         "bisection's batch config)");
    // The first label's file is the one beside the journal (the two moved
    // together are resumed where they are, renamed alike or not), unless
    // the journal is one a caller gave the run (contest run --journal: no
    // result file of its name beside it); each other label's where the
    // run put it, in its results folder: the resume writes nowhere else.
    const bool beside =
        run_journal_beside(j.results.front()).filename() == opened.path.filename() ||
        fs::is_regular_file(fs::symlink_status(result_beside_journal(opened.path), ec));
    if (beside) j.results.front() = result_beside_journal(opened.path);
    const fs::path results = j.config.results_dir.lexically_normal();
    for (std::size_t v = beside ? 1 : 0; v < j.results.size(); ++v) {
        const fs::path& file = j.results[v];
        const fs::path rel = file.lexically_normal().lexically_relative(results);
        if (!file.is_absolute() || rel.empty() || *rel.begin() == ".." ||
            std::distance(rel.begin(), rel.end()) != 2 || file.extension() != ".json")
            throw UsageError(named + ": the journal's results[" + std::to_string(v) +
                             "]: " + printable(file.string()) +
                             " is no LABEL/FILE.json in its results folder " +
                             printable(results.string()));
    }
    return opened;
}

RunOutcome advance_run(const RunConfig& given, std::optional<OpenedJournal> opened,
                       Progress& progress, JournalKept keep, const fs::path& given_journal) {
    check_run_options(given);
    // Everything that can be refused is refused before anything is measured.
    RunPlan plan = plan_after_clean_up(given);
    // The run as its journal holds it: its seed drawn.
    RunConfig config = given;
    config.seed = plan.seed;
    const std::string started_at = opened ? opened->journal.started_at : utc_timestamp();
    KeptJournal journal = [&] {
        if (opened) {
            plan.rounds = rounds_of(opened->journal.turns, plan, printable(opened->path.string()));
            write_run_journal(opened->path, opened->journal);  // the turns rounds_of marked done
            return KeptJournal(opened->path, std::move(opened->journal));
        }
        RunJournal made;
        made.config = config;
        made.started_at = started_at;
        made.turns = planned_turns(plan);
        plan.rounds = rounds_of(made.turns, plan, "the run's plan");
        return KeptJournal(given_journal, std::move(made));
    }();
    // A config the journal's JSON cannot hold (a path that is not UTF-8):
    // the run goes on without a journal, said; it cannot be resumed.
    bool kept = keep == JournalKept::yes;
    if (!opened && kept) try {
            (void)run_journal_text(journal.journal());
        } catch (const UsageError& e) {
            warn(std::string("this run keeps no journal, and cannot be resumed: ") + e.what());
            kept = false;
        }
    NewFileNamer file_of;
    if (!opened && kept)
        file_of = [&journal, &config](std::size_t v, const std::string& label) {
            return journal.name_file(v, config.results_dir, label);
        };
    LabelFiles files =
        run_label_files(config, started_at, system_fingerprint(config.workload.workdir.string()),
                        progress, file_of);
    if (kept)
        files.round_mark = [&journal](const PlannedRound& round, bool done) {
            journal.mark(round, done);
        };
    TakenHere here(config, plan, files, progress);
    drive_turns(journal.journal().turns, here);
    return here.outcome();
}

}  // namespace contest
