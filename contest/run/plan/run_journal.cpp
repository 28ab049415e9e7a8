#include "contest/run/plan/run_journal.h"

#include <algorithm>

#include "contest/run/plan/places.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {

RunJournal read_run_journal(const std::filesystem::path& path_in) {
    const std::filesystem::path path = path_in.lexically_normal();
    const std::string where = printable(path.string());
    RunJournal journal = run_journal_of(JournalFile::read(path, "the run's journal"));
    // The config checked as a start checks its own, before anything runs on it.
    try {
        check_run_options(journal.config);
        check_place(journal.config);
    } catch (const UsageError& e) {
        throw UsageError(where + ": config: " + e.what());
    }
    return journal;
}

JournalTurns planned_turns(const RunPlan& plan) {
    JournalTurns turns;
    for (const PlannedRound& round : plan.rounds)
        for (const LabelTurn& turn : round.turns) {
            JournalTurn& t = turns.list.emplace_back();
            t.round = round.index;
            t.label = turn.label;
            for (const std::size_t load : turn.loads) t.loads.emplace_back(plan.load_names[load]);
        }
    return turns;
}

LabelTurn label_turn_of(const JournalTurn& turn, const RunPlan& plan, const std::string& where) {
    LabelTurn taken{turn.label, {}};
    for (const auto& name : turn.loads) {
        const auto it = std::find(plan.load_names.begin(), plan.load_names.end(), name);
        if (it == plan.load_names.end())
            throw UsageError(where + ": loads: '" + printable(name) + "' is no load of the run");
        taken.loads.push_back(static_cast<std::size_t>(it - plan.load_names.begin()));
    }
    return taken;
}

void write_run_journal(const std::filesystem::path& path, const RunJournal& journal) {
    JournalFile::update(
        path, "the run's journal", [&](JournalFile& file) { put_run_journal(file, journal); },
        JournalFile::IfAbsent::made);
}

bool create_run_journal(const std::filesystem::path& path, const RunJournal& journal) {
    JournalFile file(path);
    put_run_journal(file, journal);
    return file.create();
}

}  // namespace contest
