// no_load and cacherun: no background work at all. The orchestrator never
// starts a process for a load that does no work; run() exists only so the
// interface is whole.
#include <unistd.h>

#include "loads/load.h"

namespace contest {
namespace {

class NoLoad final : public Load {
  public:
    void run(LoadCounters&) override {
        for (;;) ::pause();
    }
};

}  // namespace

std::unique_ptr<Load> make_no_load(const LoadEnv&) {
    return std::make_unique<NoLoad>();
}

}  // namespace contest
