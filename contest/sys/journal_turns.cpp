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

JournalTurns journal_turns_of(const nlohmann::json& journal, std::size_t labels,
                              const std::string& where) {
    if (!journal.is_object()) throw UsageError(where + ": not an object");
    // The plan's own fields alone, so that the record's reader refuses
    // nothing of the journal's other sections.
    nlohmann::json plan = nlohmann::json::object();
    for (const char* name : {"turns", "next_turn"})
        if (const auto it = journal.find(name); it != journal.end()) plan[name] = *it;
    JournalTurns turns;
    RecordReader::read(plan, where, turns);
    check_turn_labels(turns, labels, where);
    return turns;
}

void put_journal_turns(nlohmann::json& journal, const JournalTurns& turns) {
    journal.erase("turns");
    journal.erase("next_turn");
    journal.update(RecordWriter::json_of(turns, "the run's turns", BadText::replaced));
}

}  // namespace contest
