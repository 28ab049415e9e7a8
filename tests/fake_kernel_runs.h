#pragma once
// A --kernel run of two or three kernels as contest bisect's batches and
// contest track's runs make it (the labels' kernels TREE@COMMIT, the loads
// no_load and cpu_load, a command workload), for tests whose backend is a
// fake that derives each run's figures from its label's commit: the run's
// config, then its plan and the loop itself (run_rounds), no guest booted.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contest/run/plan/run_config.h"

namespace contest::test {

inline RunConfig fake_kernel_run_config(const std::vector<KernelSpec>& kernels,
                                        const std::filesystem::path& workdir,
                                        const std::filesystem::path& folder, unsigned rounds,
                                        unsigned seed, decltype(RunConfig::stop_rule) stop) {
    RunConfig config;
    config.place = RunPlace::guests;
    config.kernels = kernels;
    config.loads = {"no_load", "cpu_load"};
    config.runs = rounds;
    config.workload.kind = "command";
    config.workload.workload_cmd = "true";
    config.workload.workdir = config.load.workdir = workdir;
    config.results_dir = folder;
    config.seed = seed;
    config.stop_rule = std::move(stop);
    std::filesystem::create_directories(workdir);
    return config;
}

}  // namespace contest::test
