#include "contest/run/places/guests/duet_cpus.h"

#include <random>

#include "contest/run/plan/run_order.h"
#include "contest/sys/cpu_affinity.h"

namespace contest {

DuetCpus plan_duet_cpus(const std::vector<int>& allowed, std::size_t labels, unsigned per_guest) {
    DuetCpus out;
    const std::size_t need = labels * per_guest;
    if (need > allowed.size()) {
        out.why_not = std::to_string(labels) + " guests of " + std::to_string(per_guest) +
                      " CPUs (--vm-cpus) need " + std::to_string(need) +
                      " host CPUs side by side, and contest may use " +
                      std::to_string(allowed.size()) + " here (" + cpu_list_text(allowed) + ")";
        return out;
    }
    for (std::size_t v = 0; v < labels; ++v)
        out.sets.emplace_back(allowed.begin() + static_cast<std::ptrdiff_t>(v * per_guest),
                              allowed.begin() + static_cast<std::ptrdiff_t>((v + 1) * per_guest));
    return out;
}

std::vector<std::size_t> duet_sets_of_round(unsigned round, std::size_t labels,
                                            std::uint64_t seed) {
    std::vector<std::size_t> sets(labels);
    if (labels == 0) return sets;
    const unsigned block = (round - 1) / static_cast<unsigned>(labels);
    const std::size_t within = (round - 1) % labels;
    std::vector<std::size_t> shifts(labels);
    for (std::size_t k = 0; k < labels; ++k) shifts[k] = k;
    // Each block's own stream (turn_seed: unrelated seeds for distinct
    // blocks), shuffled as the plan shuffles.
    std::mt19937_64 random(turn_seed(seed, block, labels));
    for (std::size_t k = labels; k > 1; --k) std::swap(shifts[k - 1], shifts[random() % k]);
    for (std::size_t v = 0; v < labels; ++v) sets[v] = (v + shifts[within]) % labels;
    return sets;
}

}  // namespace contest
