#include "contest/run/places/guests/duet_round.h"

#include <algorithm>
#include <memory>

#include "contest/sys/cpu_affinity.h"
#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/signals.h"
#include "contest/vm/guest.h"

namespace contest {
namespace {

// The host's look at the guests and their shares: the barrier's release
// comes at most this long after the last guest is ready.
constexpr double kLookS = 0.01;

// How many of pid's threads are on `cpus` and no other; any that strayed
// (QEMU's own affinity settings, none by default) is pinned back first.
std::size_t threads_on(pid_t pid, const std::vector<int>& cpus) {
    std::size_t on = 0;
    for (const pid_t tid : threads_of(pid)) {
        try {
            if (cpus_of(tid) != cpus) pin_to_cpus(tid, cpus);
        } catch (const EnvironmentError&) {
            continue;  // a thread that ended meanwhile, or one the kernel keeps where it is
        }
        if (cpus_of(tid) == cpus) ++on;
    }
    return on;
}

}  // namespace

DuetRound run_duet_round(KernelGuests& guests, unsigned round, const std::vector<DuetGuest>& each,
                         const std::vector<std::string>& loads, Progress& progress) {
    std::vector<GuestTurn> turns;
    std::vector<std::filesystem::path> shares;
    for (std::size_t g = 0; g < each.size(); ++g) {
        turns.push_back(guests.prepare_turn(*each[g].label, round, loads, each[g].seed,
                                            "-" + std::to_string(g + 1), progress));
        turns.back().boot.host_cpus = each[g].cpus;
        shares.push_back(turns.back().out);
    }
    // Every run of every boot waits (--runs-per-boot: the loads N times).
    StartBarrier barrier(shares, static_cast<unsigned>(loads.size()) * turns.front().turn.runs);
    DuetRound got;
    got.pinned_threads.assign(each.size(), 0);
    // Started one after the other, a few milliseconds apart: their runs
    // wait for each other at the barrier, not here.
    std::vector<std::unique_ptr<RunningGuest>> running;
    for (const auto& turn : turns) running.push_back(std::make_unique<RunningGuest>(turn.boot));
    std::vector<bool> over(each.size(), false);
    std::vector<bool> checked(each.size(), false);
    while (std::find(over.begin(), over.end(), false) != over.end()) {
        std::string line = "round " + std::to_string(round);
        for (std::size_t g = 0; g < each.size(); ++g) {
            if (!over[g]) over[g] = !running[g]->step();
            if (!over[g] && running[g]->up() && !checked[g]) {
                got.pinned_threads[g] = threads_on(running[g]->pid(), each[g].cpus);
                checked[g] = true;
            }
            line += "  [" + each[g].label->label + "] " +
                    (over[g]            ? std::string("ended")
                     : running[g]->up() ? "running " + seconds_text(running[g]->elapsed_s())
                                        : "booting " + seconds_text(running[g]->elapsed_s()));
        }
        barrier.step(over);
        for (const auto& why : barrier.take_problems())
            warn("duet round " + std::to_string(round) + ": " + why);
        progress.tick(line);
        interruptible_sleep(kLookS);
    }
    for (std::size_t g = 0; g < each.size(); ++g)
        got.guests.push_back(KernelGuests::brought_back(turns[g], running[g]->finish()));
    got.releases = barrier.releases();
    return got;
}

}  // namespace contest
