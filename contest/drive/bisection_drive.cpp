#include "contest/drive/bisection_drive.h"

#include <exception>

#include "contest/drive/at_place.h"

namespace contest::drive {

namespace fs = std::filesystem;

RunJournal batch_journal(const RunJournal& journal, const bisect::BatchNeed& need,
                         const fs::path& bisection_folder) {
    RunJournal batch;
    batch.started_at = journal.started_at;
    batch.config = journal.config;
    batch.config.kernels = need.kernels;
    batch.config.runs = need.rounds;
    batch.config.results_dir = fs::absolute(need.folder).lexically_normal();
    batch.boot = journal.boot;
    if (batch.boot) {
        fs::path owner = fs::absolute(bisection_folder).lexically_normal();
        if (!owner.has_filename() && owner.has_relative_path()) owner = owner.parent_path();
        batch.boot->owner = owner;  // "/srv/bisect", not "/srv/bisect/"
    }
    return batch;
}

BisectionDriven drive_bisection(const bisect::BisectOptions& options, const RunJournal& journal,
                                const std::string& containment, Progress& progress) {
    bisect::Bisection bisection(options, progress);
    while (const std::optional<bisect::BatchNeed> need = bisection.next()) {
        std::exception_ptr failure;
        AtPlace at = AtPlace::ended;
        try {
            // A batch cut short is taken on from its run's journal (its
            // config that journal's, at_place.h).
            RunJournal batch = batch_journal(journal, *need, options.results);
            batch.config.containment = containment;
            at = advance_at_place(std::move(batch), need->take_on, need->stop, progress);
        } catch (...) {
            failure = std::current_exception();
        }
        bisection.ran(failure);
        if (at == AtPlace::yields && !failure)
            return {bisection.state(), BisectionDriven::Part{need->folder, need->rounds}};
    }
    return {bisection.state(), std::nullopt};
}

}  // namespace contest::drive
