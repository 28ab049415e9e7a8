#include "contest/bisect/boot_batches.h"

#include <algorithm>
#include <system_error>

#include "contest/boot/boot_state.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/text.h"

namespace contest::bisect {
namespace {

namespace fs = std::filesystem;

// The part's run as its state says, when it has one: nullopt for none (a
// start that failed before writing it).
std::optional<BootState> part_state(const fs::path& part) {
    const fs::path path = part / kRunJournalName;
    std::error_code ec;
    if (!fs::exists(path, ec)) return std::nullopt;
    return read_boot_state(fs::absolute(path));
}

// Whether a label of the part has no run that ran (ok).
bool lacks_a_figure(const std::vector<ResultFile>& part, const std::vector<std::string>& labels) {
    return std::any_of(labels.begin(), labels.end(), [&](const std::string& label) {
        return std::none_of(part.begin(), part.end(), [&](const ResultFile& f) {
            return f.label == label && std::any_of(f.runs.begin(), f.runs.end(),
                                                   [](const RunRecord& r) { return r.ok(); });
        });
    });
}

}  // namespace

TakeRounds rounds_across_reboots(StartPart start) {
    return [start](const std::vector<KernelSpec>& kernels, const fs::path& batch,
                   unsigned max_rounds, const StopRule& stop) -> std::vector<ResultFile> {
        unsigned n = 1;
        for (;; ++n) {
            // (A folder without a run's state is no part: read_batch's rule.)
            const fs::path part = part_folder(batch, n);
            const auto state = part_state(part);
            if (!state) break;
            if (!state->finished())
                throw BisectionBusy("contest bisect: " + printable(part.string()) +
                                    " is a --boot run under way (" + boot_phase_name(state->phase) +
                                    "): it goes on by itself and then the bisection does; see "
                                    "contest run --boot-status --results " +
                                    printable(part.string()));
        }
        std::vector<std::string> labels;
        for (const auto& k : kernels) labels.push_back(k.label);
        const BatchFiles batch_files = read_batch(batch, labels);
        const auto& parts = batch_files.parts;
        const unsigned rounds = batch_files.rounds;
        const std::vector<ResultFile>& files = batch_files.files;
        // A part in which a label brought no figure back (its kernel never
        // booted, or none of its runs ran) ends the batch with what it has:
        // another part would most likely do the same, at a reboot a turn.
        if ((!parts.empty() && lacks_a_figure(parts.back(), labels)) || rounds >= max_rounds ||
            (rounds > 0 && !stop(rounds, files).empty()))
            return files;
        // The ends' test needs three rounds to begin, a step's decision two.
        const unsigned first = kernels.size() <= 2 ? 3 : 2;
        const unsigned next = std::min(rounds == 0 ? first : 1u, max_rounds - rounds);
        const fs::path part = part_folder(batch, n);
        start(kernels, part, next);
        if (const auto state = part_state(part); state && state->finished())
            throw EnvironmentError("contest bisect: the batch's run in " +
                                   printable(part.string()) + " ended at its start (" +
                                   boot_phase_name(state->phase) + ": " + state->note + ")");
        throw PartStarted{part, next};
    };
}

}  // namespace contest::bisect
