#pragma once
// A place's life over a run's journal: what `contest run` asks of the
// place its words chose, through its entry in the place table (places.h),
// never by its name. Start makes the run's journal and begins; advance
// takes the journal's next turn, or its turns until the place yields (the
// host and the guests run to the end; --boot takes the turn this boot is
// for and yields to a reboot); status says how the place's run in a
// results folder stands; abort stops it. A place's own options (its rows)
// say which verb the words asked for; the life is made with them, bound to
// their values, so that what only the place knows of its options (--boot's
// method, its root) stays in the place's file. A life is made of a run's
// journal too (PlaceInfo::journal_life), of what the place kept beside the
// config there (PlaceLife::keep_own): a run given as its journal alone
// (contest run --journal FILE, a bisection's batch) parses no word.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contest/result/result_file.h"
#include "contest/run/plan/run_config.h"
#include "contest/sys/progress.h"

namespace contest {

class RunContainment;
struct RunJournal;

enum class LifeVerb {
    start,    // make the run's journal and begin
    advance,  // the journal's next turn, or its turns until the place yields
    status,   // say how the place's run in the results folder stands
    abort,    // stop the place's run in the results folder
};

// A verb as the words asked for it.
struct LifeAsked {
    LifeVerb verb = LifeVerb::start;
    std::filesystem::path journal;  // advance's: the run's journal (or a file beside it)
};

// What a start is given.
struct LifeStart {
    // The run as its words gave it, checked; a new run's paths absolute.
    RunConfig config;
    // The same run made again of its words resolved for a run whose later
    // steps run as root (cli/boot_words.h: paths resolved and root's
    // alone), parsed once: a place whose later steps read nothing of a
    // user's starts from it.
    std::function<RunConfig()> resolved_for_root;
    // false: the run's journal is another contest's (a --kernel guest's
    // turn, run --journal), which this one keeps none of.
    bool keep_journal = true;
    // The file that is the run's journal, made by the run's caller
    // (contest run --journal FILE of a place of kernels, a bisection's
    // batch cut short): a new run's turns are planned into it and its
    // result files named in it, so its caller finds them by reading it
    // back; a run whose turns it plans already goes on from it (its config
    // the journal's). Where a place keeps its runs' journals elsewhere it
    // refuses another path (--boot: its results folder's, RESULTS/.run-journal).
    // Empty: the place names the run's journal itself.
    std::filesystem::path journal;
    // config.containment set: the caller holds the runs' processes (one
    // containment for the whole contest); empty: the life sets up its own.
    // config.stop_rule: asked after each round (the caller's, not journaled).
};

// What a verb did: contest's exit code, and for the table each label's
// file the run finished (or as it stands), where each was saved (empty
// when the place's steps say it themselves) and why a save failed ("").
struct LifeStep {
    int exit_code = 0;
    std::vector<ResultFile> finished;
    std::vector<std::filesystem::path> saved;
    std::string save_failure;
    // The folder of the journal that owns the run (a bisection's, whose
    // --boot part it is), when this step ended the run: the owner goes on
    // (drive/journal_continue.h). Empty for a run of its own.
    std::filesystem::path owner;
    // With an owner: the containment that held the step's processes,
    // handed on, so that the owner goes on in it (one a contest).
    std::shared_ptr<RunContainment> containment;
    // A start that left the run under way after this contest (a --boot
    // start: its first reboot asked); false for a run that ended here.
    bool yields = false;
};

// The verb a place's own verb options asked: --OPTION-status, --OPTION-abort
// or --OPTION-continue JOURNAL (status, abort, continue_journal as given);
// nullopt for none, UsageError (one line) for more than one.
std::optional<LifeAsked> verb_options_asked(std::string_view option, bool status, bool abort,
                                            const std::filesystem::path& continue_journal);

class PlaceLife {
  public:
    virtual ~PlaceLife() = default;
    // The verb the place's own options asked for; nullopt when they asked
    // none (the chosen place then starts). UsageError, one line, for two.
    virtual std::optional<LifeAsked> asked() const { return std::nullopt; }
    virtual LifeStep start(const LifeStart& start, Progress& progress) = 0;
    virtual LifeStep advance(const std::filesystem::path& journal, Progress& progress) = 0;
    // Its exit code; what it says is on stdout.
    virtual int status(const std::filesystem::path& results) = 0;
    virtual int abort(const std::filesystem::path& results) = 0;
    // What its options keep beside the config in a run's journal made of
    // them (--boot: how it boots), for a caller that starts the run later
    // (contest bisect --boot's batches).
    virtual void keep_own(RunJournal&) const {}
};

}  // namespace contest
