#pragma once
// What a bisection of a responsiveness change decides, from the figures
// alone (no process, no git): whether its two ends differ beyond noise, and
// whether a commit between them is like the good end or like the bad one.
//
// Every step measures the commit tested in the same rounds as both ends
// (good, bad and tested, their order shuffled in each round), so that a
// round's drift (the machine warming, TCG's host busy) moves all three
// alike. A round gives y = tested - (good + bad) / 2: about -shift/2 when
// the commit is like good, +shift/2 when like bad, where shift is the mean
// of bad - good over every round of the ends so far (the ends' own rounds
// and every step's). Its spread follows from the same pairs: with each
// figure's noise s, var(bad - good) = 2 s^2 and var(y) = 1.5 s^2.
//
// A step is Wald's sequential probability ratio test between those two
// normal hypotheses: after each round, the log-likelihood ratio of "like
// bad" over "like good" is shift * sum(y) / var(y); at +-ln((1 - e) / e)
// the step is decided with error rate e (each way), in between another
// round is taken, and past max_rounds it is undecided (the commit skipped,
// as `git bisect skip`). Each y is clipped to +-shift first: a round far
// beyond the bad end is no more "bad" than the bad end, and one spike of an
// emulated guest cannot decide a step alone.
//
// A commit may be like neither end: two commits that each make part of the
// change, or a gradual one, leave the commits between them halfway (y
// about 0), and the test above then crosses one way or the other by chance.
// So a third hypothesis, halfway, is tested too, Sobel and Wald's way: each
// end against halfway, a test of its own. A step is like bad only once
// "like bad over halfway" also reaches ln((1 - h) / h) (h = halfway_error),
// and between the ends once both ends' tests against halfway reach
// -ln((1 - e) / e). With equal priors, a step's sureness is its class's
// posterior over the other end (and, like an end, apart its posterior over
// halfway), and the whole answer's is the product of its steps' (every
// step must be right for the first bad commit to be), given that the ends
// differ (ends_false_differ_rate says how often they seem to).
//
// Round by round pays only when a round's figures move together. When they
// do not (a TCG guest's load does 15 000 or 31 000 a window, guest by
// guest, whatever the round), y adds both ends' spread to the tested
// commit's; so the ends' rounds before a step choose: round by round when
// y's spread is below one figure's own, else each figure against each end's
// figures (kernel density estimates; halfway, the ends' figures' means),
// the same three sums and the same decision (docs/bisect.md).
// tests/simulations/sim_bisect.cpp checks that the stated sureness holds,
// on noise like this machine's and on a two-valued figure, against a fixed
// number of rounds.
#include <array>
#include <string>
#include <vector>

#include "contest/sys/enum_names.h"

namespace contest {

// A round of the ends: the measure's figure under each.
struct EndsRound {
    double good = 0, bad = 0;
};

// A round of a step: the ends' and the tested commit's figures.
struct StepRound {
    double good = 0, bad = 0, tested = 0;
};

struct BisectRule {
    double error_rate = 0.01;  // each step's chance of the wrong class, each way
    // A step is classed like an end only once a commit halfway between the
    // ends is also ruled out at this error rate (Wald's test of that end
    // against halfway): a halfway commit crosses the test between the ends
    // by chance as often as not when the shift is clear (docs/bisect.md).
    double halfway_error = 0.1;
    unsigned step_min_rounds = 2;  // a step decides after at least these
    unsigned step_max_rounds = 8;  // undecided after these: skipped
    double ends_level = 0.01;      // the ends differ at a paired test's p below this
    unsigned ends_min_rounds = 3;
    unsigned ends_max_rounds = 10;
};

enum class EndsState { differ, same, unknown };

// In messages and the state file.
inline constexpr std::array<EnumName<EndsState>, 3> kEndsStateNames{{
    {EndsState::differ, "differ"},
    {EndsState::same, "same"},
    {EndsState::unknown, "unknown"},
}};

// What the ends' rounds say.
struct EndsVerdict {
    EndsState state = EndsState::unknown;  // unknown: another round
    unsigned rounds = 0;
    double shift = 0;  // mean of bad - good, paired by round
    double sd = 0;     // of bad - good (NaN below two rounds)
    double p = 1;      // the paired t-test's, two-sided
    // The smallest shift these rounds could tell from noise (at ends_level,
    // 80% power): what a refusal says it could see.
    double could_see = 0;
    std::string why;  // a sentence for the user
};

// After each round of the ends: differ once ends_min_rounds are taken and
// the paired t-test's p is below ends_level; same once ends_max_rounds are
// taken without; unknown before.
// `unit` follows each figure in `why` (" s").
EndsVerdict judge_ends(const std::vector<EndsRound>& rounds, const BisectRule& rule,
                       const std::string& unit = "");

// How often judge_ends says "differ" of ends that do not: its real level.
// A look after every round from ends_min_rounds to ends_max_rounds gives
// more chances than one test at ends_level (about 4% for the defaults, not
// 1%), and no formula gives the level of such looks at a t-test, so it is
// simulated: 100 000 sequences of normal noise, a fixed seed (the same
// figure every time for the same rule). A bisection's answer is only as
// sure as this test: its steps' sureness is given that the ends differ.
double ends_false_differ_rate(const BisectRule& rule);

// between: the tested commit is neither like good nor like bad, its mean
// clearly apart from both ends' (two commits that each make part of the
// change, or a gradual one): git is not told good or bad of it (skip), and
// the answer is the range the change spreads over.
enum class StepClass { like_good, like_bad, unknown, between };

// In messages, the state file and the report.
inline constexpr std::array<EnumName<StepClass>, 4> kStepClassNames{{
    {StepClass::like_good, "like good"},
    {StepClass::like_bad, "like bad"},
    {StepClass::unknown, "cannot tell"},
    {StepClass::between, "between the ends"},
}};

struct StepVerdict {
    StepClass state = StepClass::unknown;
    unsigned rounds = 0;
    double llr = 0;  // log-likelihood ratio, like bad over like good
    // That the class is right: like an end, over the other end, 1 / (1 +
    // e^-|llr|); between, halfway's posterior over both ends.
    double sureness = 0.5;
    // Like an end: that end's over halfway, the same way (0 when between).
    double over_halfway = 0.5;
    bool at_bound = false;  // unknown with step_max_rounds taken: skip it
    double position = 0.5;  // where the tested commit's mean lies, 0 good .. 1 bad
    // Judged round by round (y, as above), or unpaired, each figure against
    // each end's figures (see judge_step).
    bool paired = true;
};

// After each round of a step; `ends` are every round of the ends so far
// (this step's among them), from which the shift and the spread are taken.
// unknown (not at_bound) while more rounds may tell.
StepVerdict judge_step(const std::vector<StepRound>& step, const std::vector<EndsRound>& ends,
                       const BisectRule& rule);

// The whole answer's sureness: the product of its decided steps'.
double answer_sureness(const std::vector<StepVerdict>& steps);

}  // namespace contest
