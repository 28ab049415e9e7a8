// no_load and cacherun: no background work at all. The orchestrator never
// starts a process for a load that does no work; run() exists only so the
// interface is whole.
#include <unistd.h>

#include "loads/registry.h"

namespace contest {
namespace {

class NoLoad final : public Load {
  public:
    void run(LoadCounters&) override {
        for (;;) ::pause();
    }
};

std::unique_ptr<Load> make_no_load(const LoadEnv&) {
    return std::make_unique<NoLoad>();
}

}  // namespace

extern const LoadInfo kNoLoad{
    .name = "no_load",
    .help = "nothing; the reference for Ratio",
    .classes = LoadClass::reference,
    .make = make_no_load,
};

extern const LoadInfo kCacherun{
    .name = "cacherun",
    .help = "no load, straight after the previous run; caches not dropped",
    .classes = LoadClass::reference | LoadClass::warm_caches,
    .make = make_no_load,
};

}  // namespace contest
