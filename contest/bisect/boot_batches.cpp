#include "contest/bisect/boot_batches.h"

#include <algorithm>
#include <system_error>

#include "contest/boot/boot_state.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::bisect {
namespace {

namespace fs = std::filesystem;

fs::path part_folder(const fs::path& batch, unsigned n) {
    return batch / ("part-" + std::to_string(n));
}

// The part's run as its state says, when it has one: nullopt for none (a
// start that failed before writing it).
std::optional<BootState> part_state(const fs::path& part) {
    const fs::path path = part / kBootStateName;
    std::error_code ec;
    if (!fs::exists(path, ec)) return std::nullopt;
    return read_boot_state(fs::absolute(path));
}

// The part's files, by the batch's labels, in their order.
std::vector<ResultFile> part_files(const fs::path& part, const std::vector<KernelSpec>& kernels) {
    std::vector<fs::path> folders;
    for (const auto& k : kernels) folders.push_back(part / k.label);
    std::vector<std::string> refused;
    return read_result_paths(folders, refused);
}

}  // namespace

std::vector<ResultFile> merged_parts(const std::vector<std::vector<ResultFile>>& parts,
                                     unsigned& rounds) {
    std::vector<ResultFile> merged;
    int offset = 0;
    for (const auto& files : parts) {
        int last = 0;
        for (const auto& f : files) {
            auto into = std::find_if(merged.begin(), merged.end(),
                                     [&](const ResultFile& m) { return m.label == f.label; });
            if (into == merged.end()) {
                into = merged.insert(merged.end(), f);
                into->runs.clear();
            }
            for (RunRecord r : f.runs) {
                last = std::max(last, r.round);
                r.round += offset;
                into->runs.push_back(std::move(r));
            }
            into->finished_at = f.finished_at;
            into->complete = into->complete && f.complete;
        }
        offset += last;
    }
    rounds = static_cast<unsigned>(offset);
    return merged;
}

TakeRounds rounds_across_reboots(StartPart start) {
    return [start](const std::vector<KernelSpec>& kernels, const fs::path& batch,
                   unsigned max_rounds, const StopRule& stop) -> std::vector<ResultFile> {
        std::vector<std::vector<ResultFile>> parts;
        unsigned n = 1;
        for (;; ++n) {
            // A folder without a run's state is a start that was refused or
            // cut before it wrote one (its build logs, at most): no part, and
            // the next start goes into it.
            const fs::path part = part_folder(batch, n);
            const auto state = part_state(part);
            if (!state) break;
            if (!state->finished())
                throw UsageError("contest bisect: " + printable(part.string()) +
                                 " is a --boot run under way (" + boot_phase_name(state->phase) +
                                 "): it goes on by itself and then the bisection does; see "
                                 "contest run --boot-status --results " +
                                 printable(part.string()));
            parts.push_back(part_files(part, kernels));
        }
        unsigned rounds = 0;
        std::vector<ResultFile> files = merged_parts(parts, rounds);
        // A part that brought no round back ends the batch with what it has:
        // another would most likely do the same.
        const bool last_empty =
            !parts.empty() && std::all_of(parts.back().begin(), parts.back().end(),
                                          [](const ResultFile& f) { return f.runs.empty(); });
        if (last_empty || rounds >= max_rounds || (rounds > 0 && !stop(rounds, files).empty()))
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
