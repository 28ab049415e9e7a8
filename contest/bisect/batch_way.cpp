#include "contest/bisect/batch_way.h"

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "contest/bisect/batch_files.h"
#include "contest/bisect/bisection_busy.h"
#include "contest/bisect/step_evidence.h"
#include "contest/boot/boot_state.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/text.h"

namespace contest::bisect {
namespace {

namespace fs = std::filesystem;

// A guests' batch: one run in this contest, its stop rule asked after each
// round; one cut short before is taken on from its run's journal.
class WholeBatches final : public BatchWay {
  public:
    bool spans_contests() const override { return false; }

    // A batch cut short is taken on from its run's journal, its rounds
    // kept; anything else there is set aside, and the batch run anew.
    fs::path begin(const fs::path& results, const std::string& name, Progress& progress) override {
        const fs::path folder = results / name;
        if ((taken_on_ = interrupted_run(folder))) {
            progress.note("contest bisect: taking on " + printable(folder.string()) +
                          " from its run's journal (" + printable(taken_on_->string()) + ")");
            return folder;
        }
        std::error_code ec;
        if (fs::exists(folder, ec))
            for (int i = 1;; ++i) {
                const fs::path aside = results / (name + ".interrupted-" + std::to_string(i));
                if (fs::exists(aside, ec)) continue;
                fs::rename(folder, aside, ec);
                break;
            }
        return folder;
    }

    std::optional<BatchNeed> need(const Batch& batch, const StopRule& stop,
                                  std::vector<ResultFile>&) override {
        return BatchNeed{.kernels = batch.kernels,
                         .folder = batch.folder,
                         .rounds = batch.max_rounds,
                         .stop = stop,
                         .part = false,
                         .take_on = taken_on_};
    }

    std::optional<std::vector<ResultFile>> ran(const Batch& batch) override {
        return read_batch(batch.folder, labels_of(batch.kernels)).files;
    }

    void ended() override { taken_on_.reset(); }

  private:
    std::optional<fs::path> taken_on_;
};

// A part's run as its state says, when it has one: nullopt for none (a
// start that failed before writing it).
std::optional<BootState> part_state(const fs::path& part) {
    const fs::path path = folder_journal_path(part);
    std::error_code ec;
    if (!fs::exists(path, ec)) return std::nullopt;
    return read_boot_state(fs::absolute(path));
}

// The batch's first part without a run's state (the next to start), once
// none before it is still under way. (A folder without a run's state is no
// part: read_batch's rule.)
fs::path next_part_folder(const fs::path& batch) {
    for (unsigned n = 1;; ++n) {
        const fs::path part = part_folder(batch, n);
        const auto state = part_state(part);
        if (!state) return part;
        if (!state->finished())
            throw BisectionBusy("contest bisect: " + printable(part.string()) +
                                " is a --boot run under way (" + boot_phase_name(state->phase) +
                                "): it goes on by itself and then the bisection does; see "
                                "contest run --boot-status --results " +
                                printable(part.string()));
    }
}

// Across reboots: a batch is one or more parts, each a run started and
// left to the machine, whose rounds the next contest reads back.
class BatchParts final : public BatchWay {
  public:
    bool spans_contests() const override { return true; }

    // The batch's parts are taken up where they were left.
    fs::path begin(const fs::path& results, const std::string& name, Progress&) override {
        return results / name;
    }

    std::optional<BatchNeed> need(const Batch& batch, const StopRule& stop,
                                  std::vector<ResultFile>& files) override {
        const fs::path part = next_part_folder(batch.folder);
        BatchFiles so_far = read_batch(batch.folder, labels_of(batch.kernels));
        // A part in which a label brought no figure back (its kernel never
        // booted, or none of its runs ran) ends the batch with what it has:
        // another part would most likely do the same, at a reboot a turn.
        if ((so_far.parts.empty() || !lacks_a_figure(so_far.parts.back(), batch.kernels)) &&
            so_far.rounds < batch.max_rounds &&
            (so_far.rounds == 0 || stop(so_far.rounds, so_far.files).empty())) {
            // The ends' test needs three rounds to begin, a step's decision two.
            const unsigned first = batch.step ? 2 : 3;
            const unsigned rounds =
                std::min(so_far.rounds == 0 ? first : 1u, batch.max_rounds - so_far.rounds);
            part_ = part;
            return BatchNeed{.kernels = batch.kernels,
                             .folder = part,
                             .rounds = rounds,
                             .stop = {},
                             .part = true,
                             .take_on = std::nullopt};
        }
        files = std::move(so_far.files);
        return std::nullopt;
    }

    // The part just started: its run takes its turns across reboots,
    // unless it ended at its start (its first reboot refused: another part
    // would end the same way).
    std::optional<std::vector<ResultFile>> ran(const Batch&) override {
        if (!part_) throw std::logic_error("contest bisect: no part was asked for");
        if (const auto state = part_state(*part_); state && state->finished())
            throw EnvironmentError("contest bisect: the batch's run in " +
                                   printable(part_->string()) + " ended at its start (" +
                                   boot_phase_name(state->phase) + ": " + state->note + ")");
        return std::nullopt;
    }

    void ended() override { part_.reset(); }

  private:
    std::optional<fs::path> part_;  // the part asked for
};

}  // namespace

std::unique_ptr<BatchWay> batch_way(bool in_parts) {
    if (in_parts) return std::make_unique<BatchParts>();
    return std::make_unique<WholeBatches>();
}

}  // namespace contest::bisect
