#include "contest/sys/journal_turns.h"

#include <algorithm>

#include "contest/sys/errors.h"

namespace contest {

bool JournalTurns::any_pending() const {
    return std::any_of(list.begin(), list.end(),
                       [](const JournalTurn& t) { return t.status == TurnStatus::pending; });
}

namespace {

bool taken(const JournalTurn& t) {
    return t.status == TurnStatus::done || t.status == TurnStatus::boot_failed;
}

}  // namespace

std::size_t JournalTurns::first_not_taken() const {
    return static_cast<std::size_t>(std::find_if_not(list.begin(), list.end(), taken) -
                                    list.begin());
}

void JournalTurns::mark(std::size_t i, TurnStatus status) {
    list.at(i).status = status;
    next = i;
    while (next < list.size() && taken(list[next])) ++next;
}

void check_turn_labels(const JournalTurns& turns, std::size_t labels, const std::string& where) {
    for (std::size_t i = 0; i < turns.list.size(); ++i)
        if (turns.list[i].label >= labels)
            throw UsageError(where + ": turns[" + std::to_string(i) + "]: label: no such label");
}

void check_turn_rounds(const JournalTurns& turns, unsigned runs, const std::string& where) {
    for (std::size_t i = 0; i < turns.list.size(); ++i)
        if (turns.list[i].round < 1 || turns.list[i].round > runs)
            throw UsageError(where + ": turns[" + std::to_string(i) +
                             "]: round: " + std::to_string(turns.list[i].round) +
                             " is not one of the run's " + std::to_string(runs) + " rounds");
}

namespace {

nlohmann::json plan_json(const JournalTurns& turns) {
    return RecordWriter::json_of(turns, "the run's turns", BadText::replaced);
}

JournalTurns plan_from_json(const nlohmann::json& fields, const std::string& where) {
    JournalTurns turns;
    RecordReader::read(fields, where, turns);
    return turns;
}

nlohmann::json results_json(const JournalResults& results) {
    return RecordWriter::json_of(results, "the run's result files");
}

JournalResults results_from_json(const nlohmann::json& fields, const std::string& where) {
    JournalResults results;
    RecordReader::read(fields, where, results);
    return results;
}

}  // namespace

const JournalSection<JournalTurns> kPlanSection{{"turns", "next_turn"}, plan_json, plan_from_json};
const JournalSection<JournalResults> kResultsSection{{"results"}, results_json, results_from_json};

JournalTurns journal_turns_of(const JournalFile& journal, std::size_t labels) {
    JournalTurns turns = journal.get(kPlanSection);
    check_turn_labels(turns, labels, journal.where());
    return turns;
}

}  // namespace contest
