#pragma once
// A bisection's state: the question (tree, ends, measure, rule), the ends'
// verdict, every step's evidence and the answer. It is the `bisection`
// section of the bisection's journal (.run-journal in its results
// folder, sys/journal_file.h), beside the config its batches run with
// (run/plan/run_journal.h): one file a bisection, written after every step
// (atomically, the rest of the journal kept), read back by a rerun that
// resumes it, by --continue and by `contest post`; read as untrusted text:
// a field of the wrong type or out of its range is one line naming it
// (exit 2).
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "contest/analysis/bisect_decision.h"
#include "contest/sys/journal_file.h"

namespace contest::bisect {

struct BisectStep {
    std::string commit, subject;
    StepClass state = StepClass::unknown;
    std::string word;                     // what git was told: good, bad or skip
    unsigned rounds = 0, incomplete = 0;  // incomplete: rounds without a figure of each label
    double llr = 0, sureness = 0.5, position = 0.5;
    // Like an end: that end's sureness over halfway (NaN: not kept, a state
    // of before halfway was tested).
    double over_halfway = std::nan("");
    double seconds = 0;  // the step's wall time, builds and runs
    double build_s = 0;  // of it, the tested commit's build (0 on a cache hit)
    // Of it, the guests' (every label's, every round's): booting (to
    // their init) and in all (boot, runs, power-off); 0 where not recorded.
    double boots_s = 0, guests_s = 0;
    bool cache_hit = false;
    std::string folder;  // its result files, below the bisection's folder
    std::string why;     // a skip's reason ("does not build: ...")
};

struct BisectState {
    int version = 1;
    std::string tree, good, bad;  // the commits, full hashes
    // The ends' own config options (.config lines, each checked to be one
    // when the batches' specs are made of them), every commit built with them.
    std::vector<std::string> options;
    std::string measure;  // WHAT:LOAD
    std::string place;    // kernel (guests) or boot (this machine, across reboots)
    bool emulated = false;
    double error_rate = 0.01;
    unsigned step_max_rounds = 8;
    unsigned ends_max_rounds = 0;  // 0 in a state written before it was kept
    // The words after -- as the start was given them (the workload, the
    // loads, ...): a rerun's are compared with them; never parsed again
    // (each batch is the bisection journal's config).
    std::vector<std::string> run_words;
    // When the batch under way began (seconds since the epoch; 0: none):
    // under --boot a batch spans reboots and the contests that take them.
    double batch_started = 0;
    double started = 0;  // the bisection's start, the same way (0: not kept)
    // The ends.
    EndsState ends_state = EndsState::unknown;
    unsigned ends_rounds = 0;
    double shift = 0, shift_sd = 0, ends_p = 1, could_see = 0;
    std::string ends_why;
    std::vector<BisectStep> steps;
    // The answer: the first bad commit, or the commits it could be.
    std::string first_bad, first_bad_subject, first_bad_author;
    std::vector<std::string> could_be;
    double sureness = 0;
    bool finished = false;
    double seconds = 0;  // the whole bisection's wall time so far
    // Why it stopped short of an answer (an end that does not build, a
    // part the machine refused): "" while it goes on. A rerun (--continue)
    // takes it on from where it stands and clears it.
    std::string failure;
};

// The journal's `bisection` section (sys/journal_file.h): the bisect
// layer's codec; reading a journal without it is a UsageError in one line.
extern const JournalSection<BisectState> kBisectionStateSection;

// The bisection's journal in its results folder (.run-journal, or the
// name an earlier contest gave it, .run-journal.json, while it is there).
std::filesystem::path bisection_journal_path(const std::filesystem::path& folder);
// Whether the bisection's journal in folder holds a state. A folder of a
// contest before the state moved into the journal (its bisect.json) is
// refused in one line (UsageError): start it again in a new folder.
bool has_bisect_state(const std::filesystem::path& folder);
// The state in folder's journal: UsageError in one line when there is
// none, or it is not one (naming the field).
BisectState read_bisect_state(const std::filesystem::path& folder);
// The state's section of the journal (its JSON text, without the journal
// around it), for the fuzz target and its tests: UsageError naming `where`
// and the field.
BisectState bisect_state_from_text(const std::string& text, const std::string& where);
std::string bisect_state_text(const BisectState& state);
// The journal's state replaced, in one atomic write under the journal's
// lock (JournalFile::update), the rest of the journal kept (a journal of
// the state alone made when there is none).
void write_bisect_state(const std::filesystem::path& folder, const BisectState& state);

}  // namespace contest::bisect
