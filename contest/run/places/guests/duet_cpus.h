#pragma once
// Where a duet's guests run (--duet, docs/kernels.md): each label's guest on
// host CPUs of its own, --vm-cpus each, and the sets passed round from
// label to label round by round, so that no label keeps the faster CPUs (one
// with fewer interrupts, a sibling less busy, a core that boosts higher):
// within every block of as many rounds as labels, each label has each set
// once (a Latin square's rows, in an order shuffled from the run's seed, so
// the sets do not alternate in step with anything periodic). Where the
// labels do not fit side by side, why, in one line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace contest {

struct DuetCpus {
    std::vector<std::vector<int>> sets;  // one per label, disjoint; empty when no duet
    std::string why_not;                 // "" when the labels fit side by side
};

// `labels` sets of `per_guest` CPUs each, from `allowed` (the CPUs contest
// may run on, ascending) in order; or why not, when labels × per_guest is
// more than `allowed` holds.
DuetCpus plan_duet_cpus(const std::vector<int>& allowed, std::size_t labels, unsigned per_guest);

// Which set each label has in `round` (from 1): label v has set
// (v + shift) mod labels, the shifts of each block of `labels` rounds a
// permutation of 0..labels-1 drawn from `seed` and the block's number.
std::vector<std::size_t> duet_sets_of_round(unsigned round, std::size_t labels, std::uint64_t seed);

}  // namespace contest
