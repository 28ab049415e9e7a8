#pragma once
// What a --kernel run's result file records of its guests, beside its runs:
// the QEMU set-up and the label's kernel, each boot's times, and what the
// first guest's own file says of the machine its runs saw. The run layer
// calls these; the field names live here, with the rest of the file's.
#include <nlohmann/json.hpp>

#include "contest/result/result_file.h"

namespace contest {

// config.vm (the accelerator, the guest's shape) and config.kernel (the
// label's kernel: its fingerprint and initramfs).
void record_guest_setup(ResultFile& file, const nlohmann::json& vm, const nlohmann::json& kernel);

// One guest's boot in `round`: to its init in up_s, to QEMU's end in total_s;
// a duet's guest (--duet) also its CPUs, the guests beside it and its runs'
// starts (`duet`, made by the run layer; null for a guest alone).
void record_guest_boot(ResultFile& file, unsigned round, double up_s, double total_s,
                       const nlohmann::json& duet = nullptr);

// What a guest's own result file brings to its kernel's file: the loads'
// facts every time; from the first guest also its fingerprint (the host's
// kept as config.vm.host_system) and its probes', workload's and jobs'
// config. The first is known from the file itself, so that a later round
// need not be taken by the same contest.
void take_guest_facts(ResultFile& file, const ResultFile& guest);

}  // namespace contest
