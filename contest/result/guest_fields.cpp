#include "contest/result/guest_fields.h"

namespace contest {

void record_guest_setup(ResultFile& file, const nlohmann::json& vm, const nlohmann::json& kernel) {
    file.config["vm"] = vm;
    file.config["kernel"] = kernel;
}

void record_guest_boot(ResultFile& file, unsigned round, double up_s, double total_s,
                       const nlohmann::json& duet) {
    nlohmann::json boot = {{"round", round}, {"up_s", up_s}, {"total_s", total_s}};
    if (!duet.is_null()) boot["duet"] = duet;
    file.config["vm"]["boots"].push_back(std::move(boot));
}

void take_guest_facts(ResultFile& file, const ResultFile& guest) {
    nlohmann::json& vm = file.config["vm"];
    if (!vm.contains("host_system")) {
        vm["host_system"] = file.system;
        file.system = guest.system;
        for (const char* key : {"latency", "workload", "jobs"})
            if (guest.config.contains(key)) file.config[key] = guest.config[key];
    }
    for (const auto& [load, facts] : guest.loads.items()) file.loads[load] = facts;
}

}  // namespace contest
