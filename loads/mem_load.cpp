// mem_load: references more memory than the machine has (110% of RAM, as
// contest's), a word per page, first over the whole buffer in order, then
// in a permuted order that defeats the caches and the prefetcher, over and
// over. With swap that makes the VM page; without, it keeps every page
// resident and competes for RAM with the page cache and the workload.
//
// Capped so that it can never bring in the OOM killer: at most MemAvailable
// + SwapFree less a margin of max(256 MiB, 5% of RAM). On a machine without
// swap that keeps it under RAM, and the facts say so.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <numeric>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "loads/load.h"
#include "loads/load_files.h"
#include "loads/load_size.h"
#include "loads/registry.h"

namespace contest {
namespace {

constexpr const LoadOption* kMemLoadOptions[] = {&kLoadSizeOption};

constexpr std::uint64_t kMinimumBytes = 16 * kMiB;
constexpr std::uint64_t kPagesPerUpdate = 256;  // pages touched between counter updates

class MemLoad final : public Load {
  public:
    explicit MemLoad(const LoadEnv& env)
        : env_(env), page_bytes_(static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE))) {}

    void prepare() override {
        target_ = load_size_bytes(env_.options).value_or(env_.mem_total + env_.mem_total / 10);
        margin_ = std::max(256 * kMiB, env_.mem_total / 20);
        std::uint64_t can_give = env_.mem_available + env_.swap_free;
        cap_ = can_give > margin_ ? can_give - margin_ : 0;
        bytes_ = std::min(target_, cap_) / page_bytes_ * page_bytes_;
        if (bytes_ < kMinimumBytes)
            throw EnvironmentError(
                "mem_load: not enough memory: " + std::to_string(env_.mem_available / kMiB) +
                " MiB available, " + std::to_string(env_.swap_free / kMiB) + " MiB swap free, " +
                std::to_string(margin_ / kMiB) + " MiB kept as margin");
    }

    void run(LoadCounters& counters) override {
        // If memory runs short anyway (the workload grew), the OOM killer
        // takes the load, not the compile or the machine.
        volunteer_for_oom_killer();
        void* mem = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (mem == MAP_FAILED) {
            counters.fail("mem_load: mmap of " + std::to_string(bytes_ / kMiB) +
                          " MiB: " + std::strerror(errno));
            return;
        }
        // Base pages, not transparent huge pages: a word per 4 KiB page is a
        // page the VM has to keep, and a TLB miss, only if pages are small.
        ::madvise(mem, bytes_, MADV_NOHUGEPAGE);
        auto* base = static_cast<unsigned char*>(mem);
        const std::uint64_t pages = bytes_ / page_bytes_;
        const std::uint64_t stride = permutation_stride(pages);
        std::uint64_t start = 0;
        for (;;) {
            // In order: the whole buffer, as the first pass faulted it in.
            sweep(counters, base, pages, [](std::uint64_t i) { return i; });
            // Permuted: i -> (start + i * stride) mod pages visits every page
            // once (stride is coprime to pages), each far from the last.
            start = (start + 7919) % pages;
            sweep(counters, base, pages,
                  [=](std::uint64_t i) { return (start + i * stride) % pages; });
        }
    }

    nlohmann::json facts() const override {
        nlohmann::json f = {
            {"target_bytes", target_},
            {"target_from", load_size_bytes(env_.options) ? "size override" : "110% of MemTotal"},
            {"cap_bytes", cap_},
            {"margin_bytes", margin_},
            {"bytes", bytes_},
            {"capped", cap_ < target_},
            {"mem_total_bytes", env_.mem_total},
            {"mem_available_bytes", env_.mem_available},
            {"swap_free_bytes", env_.swap_free},
            {"page_bytes", page_bytes_}};
        if (env_.swap_free == 0)
            f["note"] =
                "no swap: mem_load stays under RAM (MemAvailable less the margin), so it "
                "competes for memory without paging anything out to swap";
        return f;
    }

  private:
    template <typename PageAt>
    void sweep(LoadCounters& counters, unsigned char* base, std::uint64_t pages, PageAt page_at) {
        for (std::uint64_t i = 0; i < pages;) {
            const std::uint64_t first = i, end = std::min(pages, i + kPagesPerUpdate);
            for (; i < end; ++i) {
                auto* word =
                    reinterpret_cast<volatile std::uint64_t*>(base + page_at(i) * page_bytes_);
                *word = *word + 1;
            }
            counters.units.fetch_add((end - first) * page_bytes_, std::memory_order_relaxed);
        }
        counters.secondary.fetch_add(1, std::memory_order_relaxed);
    }

    // A stride near pages / golden ratio, made coprime to pages so the walk
    // is a permutation.
    static std::uint64_t permutation_stride(std::uint64_t pages) {
        if (pages < 3) return 1;
        std::uint64_t stride =
            static_cast<std::uint64_t>(static_cast<double>(pages) * 0.6180339887);
        stride = std::max<std::uint64_t>(stride, 1);
        while (std::gcd(stride, pages) != 1) ++stride;
        return stride;
    }

    LoadEnv env_;
    std::uint64_t page_bytes_;
    std::uint64_t target_ = 0, margin_ = 0, cap_ = 0, bytes_ = 0;
};

}  // namespace

extern const LoadInfo kMemLoad{
    .name = "mem_load",
    .help = "references 110% of RAM a word per page (capped below the OOM killer), over and over",
    .unit = "GiB touched",
    .unit_divisor = 1 << 30,
    .secondary_unit = "passes",
    .classes = LoadClass::memory,
    .options = kMemLoadOptions,
    .make = [](const LoadEnv& env) -> std::unique_ptr<Load> {
        return std::make_unique<MemLoad>(env);
    },
};

}  // namespace contest
