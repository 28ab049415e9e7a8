// --boot: every round boots this machine into each label's kernel, one
// reboot a turn; each boot's step (contest/boot/boot_run.h, started by the
// unit) takes its one turn on this host, with the host's backend.
#include "contest/run/places.h"
#include "contest/run/run_plan.h"

namespace contest {

extern const PlaceInfo kBootPlace{
    .place = RunPlace::boot,
    .option = "boot",
    .value_name = "KERNEL",
    .excludes =
        {
            kKernelsTakeRounds,
            {"vary", "", ""},
            {"resume", "", "a --boot run resumes by itself"},
            {"runs", "auto", "not yet"},
            kKernelsNameLabels,
        },
    .labels = kernel_labels,
    .runs = plan_kernel_runs,
    .backend = host_round_backend,  // a turn is a host run's
};

}  // namespace contest
