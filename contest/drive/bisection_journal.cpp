#include "contest/drive/bisection_journal.h"

#include <optional>
#include <system_error>

#include "contest/bisect/bisect_state.h"
#include "contest/kbuild/kernel_config.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/text.h"
#include "contest/sys/trusted_folder.h"
#include "contest/sys/utc_timestamp.h"
#include "loads/registry.h"

namespace contest::drive {
namespace {

namespace fs = std::filesystem;

// The build config at the start, into the folder (root's, as the results
// of any --boot run); a copy an earlier start made is kept.
fs::path pinned_build_config(const fs::path& folder, const fs::path& given) {
    const fs::path pinned = folder / "build.config";
    std::error_code ec;
    if (bisect::has_bisect_state(folder) && fs::exists(pinned, ec)) return pinned;
    const kbuild::ConfigChoice chosen = kbuild::choose_config(given, kbuild::BuildTarget::boot);
    write_file_atomically(pinned, "# contest bisect --boot: every batch's build config, from " +
                                      printable(chosen.source) + " at its start\n" + chosen.text);
    return pinned;
}

// The loads a run of `config` takes (`default` and `all` expanded), which
// the bisection's measure names one of.
std::vector<std::string> loads_of(const RunConfig& config) {
    std::vector<std::string> loads;
    for (const LoadInfo* info : resolve_loads(config.loads, config.load))
        loads.emplace_back(info->name);
    return loads;
}

BisectionDriven continue_from_state(const bisect::BisectState& s, const fs::path& folder,
                                    const std::string& containment, Progress& progress) {
    bisect::BisectOptions options;
    options.tree = s.tree;
    options.good = s.good;
    options.bad = s.bad;
    options.results = folder;
    options.place = s.place;
    options.run_words = s.run_words;
    options.rule.error_rate = s.error_rate;
    options.rule.step_max_rounds = s.step_max_rounds;
    if (s.ends_max_rounds) options.rule.ends_max_rounds = s.ends_max_rounds;
    options.options = s.options;
    const RunJournal journal = read_bisection_journal(folder);
    if (!journal.boot)
        throw UsageError("contest bisect --continue: " + printable(folder.string()) +
                         ": its journal holds no boot options (a bisection in guests)");
    options.in_parts = true;
    options.workdir = journal.config.workload.workdir;
    options.measure = bisect::parse_bisect_measure(s.measure, loads_of(journal.config));
    return drive_bisection(options, journal, containment, progress);
}

}  // namespace

RunJournal bisection_journal(const fs::path& folder, RunJournal started) {
    using bisect::bisection_journal_path;
    // A state with no config beside it (written by hand, or the start
    // stopped between the two) is kept under the new config.
    std::optional<bisect::BisectState> state;
    if (bisect::has_bisect_state(folder)) {
        if (JournalFile::read(bisection_journal_path(folder), "the bisection's journal")
                .has(kRunSection))
            return read_bisection_journal(folder);
        state = bisect::read_bisect_state(folder);
    }
    RunJournal journal = std::move(started);
    if (journal.started_at.empty()) journal.started_at = utc_timestamp();
    RunConfig& config = journal.config;
    config.seed.reset();
    config.workload.workdir = config.load.workdir =
        fs::absolute(config.workload.workdir).lexically_normal();
    // (--db: an entry with its `where`; none given: the default one, empty.)
    std::erase_if(config.sinks, [](const SinkSpec& sink) {
        return sink.kind == SinkKind::results_database && sink.where.empty();
    });
    if (journal.boot) config.build_config = pinned_build_config(folder, config.build_config);
    write_run_journal(bisection_journal_path(folder), journal);
    if (state) bisect::write_bisect_state(folder, *state);
    return journal;
}

RunJournal read_bisection_journal(const fs::path& folder) {
    const fs::path path = bisect::bisection_journal_path(folder);
    if (auto why = file_open_to_others(path))
        throw EnvironmentError("contest bisect: " + printable(path.string()) + ": " + *why +
                               ": refusing it, root runs what it names at every batch");
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw UsageError("contest bisect: " + printable(folder.string()) +
                         " has no journal of its batches (a bisection an earlier contest "
                         "started): start it again in a new folder");
    return read_run_journal(path);
}

BisectionDriven continue_bisection(const fs::path& folder, const std::string& containment,
                                   Progress& progress) {
    const fs::path path = bisect::bisection_journal_path(folder);
    if (auto why = file_open_to_others(path))
        throw EnvironmentError("contest bisect --continue: " + printable(path.string()) + ": " +
                               *why + ": refusing it, root runs what it names at every batch");
    const bisect::BisectState s = bisect::read_bisect_state(folder);
    if (s.place != "boot")
        throw UsageError(
            "contest bisect --continue: " + printable(folder.string()) +
            " is a bisection in guests: run the same contest bisect again to resume it");
    try {
        return continue_from_state(s, folder, containment, progress);
    } catch (const Interrupted&) {
        throw;
    } catch (const bisect::BisectionBusy&) {
        throw;
    } catch (const std::exception& e) {
        // What failed before the bisection took its state (a journal that
        // no longer reads) is its state's too: nobody watches the unit.
        try {
            bisect::record_bisection_failure(folder, e.what());
        } catch (const std::exception&) {
            // (the failure to say is the one above)
        }
        throw;
    }
}

}  // namespace contest::drive
