// cpu_load: one busy process per online CPU, as contest's. Each spins on
// integer arithmetic and adds its loop count to the shared counter, so Loads
// says how much CPU the load got next to the compile.
#include <unistd.h>

#include "contest/sys/spawn.h"
#include "loads/load.h"
#include "loads/registry.h"

namespace contest {
namespace {

constexpr std::uint64_t kBatch = 1u << 20;  // loops between counter updates

[[noreturn]] void spin(LoadCounters& counters) {
    std::uint64_t x = static_cast<std::uint64_t>(::getpid());
    for (;;) {
        for (std::uint64_t i = 0; i < kBatch; ++i) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            // Keeps the loop from being folded away without touching memory.
            asm volatile("" : "+r"(x));
        }
        counters.units.fetch_add(kBatch, std::memory_order_relaxed);
    }
}

class CpuLoad final : public Load {
  public:
    explicit CpuLoad(unsigned cpus) : cpus_(cpus) {}
    void run(LoadCounters& counters) override {
        for (unsigned i = 1; i < cpus_; ++i)
            fork_function(
                [&] {
                    spin(counters);
                    return 0;
                },
                ChildTies::in_callers_group());
        spin(counters);
    }
    nlohmann::json facts() const override { return {{"processes", cpus_}}; }

  private:
    unsigned cpus_;
};

}  // namespace

extern const LoadInfo kCpuLoad{
    .name = "cpu_load",
    .help = "one busy process per online CPU",
    .unit = "M loops",
    .unit_divisor = 1e6,
    .classes = LoadClass::cpu,
    .make = [](const LoadEnv& env) -> std::unique_ptr<Load> {
        return std::make_unique<CpuLoad>(env.cpus);
    },
};

}  // namespace contest
