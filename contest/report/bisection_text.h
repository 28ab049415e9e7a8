#pragma once
// What a bisection says for a person, rendered through the outputs table
// (report/outputs.h: the use bisection, text only): its answer and every
// step's evidence (contest bisect's end, contest post of its folder, the
// track's mail), or the part of a batch it just started across reboots.
// The model is plain: what the bisection's state says, put together by its
// own layer (contest/bisect/bisection_text.cpp); every text of the tree's
// (a subject, an author) is made printable here.
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/bisect_decision.h"

namespace contest {

struct BisectionAnswerStep {
    std::string commit;  // its first 12 hex digits
    std::string subject;
    StepClass state = StepClass::unknown;
    double sureness = 0.5;    // over the other end (like an end), or sure it is between
    double over_halfway = 0;  // like an end: sure over halfway; NaN not kept
    unsigned rounds = 0;
    double position = 0.5;   // 0 good, 1 bad
    std::string why;         // a skipped step's reason
    bool cache_hit = false;  // its kernel built before
    double build_s = 0, guests_s = 0, boots_s = 0, seconds = 0;
};

// A batch of the bisection started across reboots of this machine: its
// rounds and folder, and the bisection's own folder.
struct BisectionPartStarted {
    unsigned rounds = 0;
    std::string part, bisection;
};

struct BisectionAnswer {
    std::optional<BisectionPartStarted> part;  // set: this alone is said
    std::string good, bad;                     // their first 12 hex digits
    std::string measure;                       // WHAT:LOAD
    bool emulated = false;                     // in TCG guests
    bool across_reboots = false;               // its batches at the boot place
    EndsState ends_state = EndsState::unknown;
    std::string ends_why;
    std::vector<BisectionAnswerStep> steps;
    bool finished = false;
    std::string failure;  // why it ended without an answer
    std::string first_bad, first_bad_subject, first_bad_author;
    std::vector<std::string> could_be;
    double sureness = 0;  // that every step is right, if the ends differ
    // The ends' test: a look after each of rounds min to max at p < level,
    // and how often it says they differ when they do not.
    unsigned ends_min_rounds = 0, ends_max_rounds = 0;
    double ends_level = 0, ends_false_differ = 0;
    double seconds = 0;  // the whole bisection's wall time
};

std::string bisection_answer_text(const BisectionAnswer& answer);

// 0.97 as "97.0%", 0.9996 as "99.96%", anything surer than 99.99% as
// "> 99.99%": a sureness is never 100%, and the plug-in figures behind it
// are not good to more places.
std::string sureness_text(double p);

}  // namespace contest
