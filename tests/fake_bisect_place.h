#pragma once
// A bisection driven at a fake place, as the drive layer's loop drives it at
// its place (drive/bisection_drive.cpp, drive_bisection): each batch the stepper
// asks for (bisection.h, BatchNeed) taken by `take`, which writes the
// labels' files into the batch's folder as a guests' batch keeps them (a
// fake backend through the run loop, or figures written by hand), and the
// stepper told it ran, or how it failed, until it answers.
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "contest/bisect/bisection.h"
#include "contest/vm/kernel_image.h"

namespace contest::test {

// One batch: `kernels` in up to max_rounds rounds into `folder`, stopped
// early by `stop`; what it returns is not read (the stepper reads the folder).
using TakeRounds =
    std::function<void(const std::vector<KernelSpec>& kernels, const std::filesystem::path& folder,
                       unsigned max_rounds, const bisect::StopRule& stop)>;

inline bisect::BisectState run_bisection(const bisect::BisectOptions& options,
                                         const TakeRounds& take, Progress& progress) {
    bisect::Bisection bisection(options, progress);
    while (const std::optional<bisect::BatchNeed> need = bisection.next()) {
        std::exception_ptr failure;
        try {
            take(need->kernels, need->folder, need->rounds, need->stop);
        } catch (...) {
            failure = std::current_exception();
        }
        bisection.ran(failure);
    }
    return bisection.state();
}

}  // namespace contest::test
