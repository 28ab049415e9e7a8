#pragma once
// A run's plan of turns, at its journal's top level (sys/journal_file.h,
// the section kPlanSection):
// each turn one label's loads in one round, with where it is, and the turn
// the run takes next. The plan is the run's, not any place's: the boot
// run's state beside it (boot/boot_state.h, the boot_run section) keeps
// only how its kernels are booted and which boots it saw, and reads its
// turns here.
//
// Both directions walk one fields() record (sys/json_record.h); both
// fields are absent while the plan is empty (a journal of no turns: a
// bisection's batch config, a guest's turn).
#include <array>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/sys/enum_names.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/json_record.h"

namespace contest {

// Where a turn is. The names are the journal's words.
enum class TurnStatus {
    pending,
    started,  // its runs began and have not ended
    done,
    boot_failed,  // a --boot turn whose kernel did not come up
    interrupted,  // --boot-abort stopped its runs
};
inline constexpr std::array<EnumName<TurnStatus>, 5> kTurnStatusNames{{
    {TurnStatus::pending, "pending"},
    {TurnStatus::started, "started"},
    {TurnStatus::done, "done"},
    {TurnStatus::boot_failed, "boot_failed"},
    {TurnStatus::interrupted, "interrupted"},
}};
template <>
struct JsonWords<TurnStatus> {
    static constexpr const auto& names = kTurnStatusNames;
    static constexpr const char* what = "turn status";
};
constexpr const char* turn_status_name(TurnStatus status) {
    return name_in(kTurnStatusNames, status).data();
}

// One label's turn in a round: the round's loads under that label.
struct JournalTurn {
    unsigned round = 0;
    std::size_t label = 0;  // index into the run's labels (a --boot run's: its state's)
    std::vector<std::string> loads;
    TurnStatus status = TurnStatus::pending;

    bool operator==(const JournalTurn&) const = default;
};

struct JournalTurns {
    std::vector<JournalTurn> list;
    std::size_t next = 0;  // the turn the run takes next (list.size(): none left)

    // Some turn not taken (neither done nor failed): the run stopped short.
    bool any_pending() const;
    // The first turn not taken yet (neither done nor boot_failed; one
    // started, cut short, is not): list.size() when every one was.
    std::size_t first_not_taken() const;
    // Turn i marked `status`, and `next` set to it, or past it and the
    // turns taken after it once it is taken (a run takes its turns in
    // order: the one after it). Every driver marks its turns here (a --boot step's,
    // boot_steps.cpp; a host run's and --resume's, run/rounds/run_driver.h).
    void mark(std::size_t i, TurnStatus status);
};

template <typename V, RecordOf<JournalTurn> R>
void fields(V& v, R& t) {
    v("round", t.round);
    v("label", t.label);
    v("loads", t.loads);
    v("status", t.status);
}

// The journal's top-level fields "turns" and "next_turn" (kPlanSection);
// the run journal's own record (run/plan/run_journal_text.cpp) walks these too.
template <typename V, RecordOf<JournalTurns> R>
void fields(V& v, R& t) {
    v.absent_when_default("turns", t.list);
    v.absent_when_default("next_turn", t.next);
    if constexpr (V::reading)
        if (t.next > t.list.size()) v.refuse("next_turn", "past the last turn");
}

// The plan's section of a journal (sys/journal_file.h): its top-level
// turns and next_turn, whatever else the journal holds; a journal of no
// plan holds neither, and reads as none.
extern const JournalSection<JournalTurns> kPlanSection;
// The plan in a journal: a UsageError naming the journal and the field
// when it is not one, or when a turn names a label at or past `labels`.
JournalTurns journal_turns_of(const JournalFile& journal, std::size_t labels);

// Each label's result file, in the plan's labels' order, as a run named
// them before its first run (the run's section, run/plan/run_journal.h, holds
// them; a layer that takes on a run's files, bisect/batch_files.h, reads
// them here). Absent from a journal of no plan, and from a --boot run's.
struct JournalResults {
    std::vector<std::filesystem::path> files;
};
template <typename V, RecordOf<JournalResults> R>
void fields(V& v, R& r) {
    v.absent_when_default("results", r.files);
}
extern const JournalSection<JournalResults> kResultsSection;

// UsageError naming `where` and the first turn whose label is at or past
// `labels`.
void check_turn_labels(const JournalTurns& turns, std::size_t labels, const std::string& where);
// UsageError naming `where` and the first turn whose round is not one of
// the run's `runs` rounds (1 to runs: a round's number is its runs' index
// in the result file, run/plan/run_order.h).
void check_turn_rounds(const JournalTurns& turns, unsigned runs, const std::string& where);

}  // namespace contest
