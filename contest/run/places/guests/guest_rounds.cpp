#include "contest/run/places/guests/guest_rounds.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "contest/result/guest_fields.h"
#include "contest/run/places/guests/duet_round.h"
#include "contest/sys/cpu_affinity.h"
#include "contest/sys/number_text.h"

namespace contest {
namespace {

// What a duet run's file says of the measures it gives (config.vm.duet.measures).
const char* const kDuetMeasures =
    "each round's guests ran at once, their runs started together: Time, CPU%, Loads and the "
    "runs' other figures are paired by round under the same moment of the host, whose drift "
    "they share; the latency probes ran as in a guest alone, but their wake-ups also count "
    "what the guests beside share with them on the host (caches, memory bandwidth, the host's "
    "kernel and QEMU's own threads), alike for every label of a round: compare them between "
    "the labels of this run, not with guests run alone";

}  // namespace

GuestRounds::GuestRounds(const RunConfig& config, RunPlan& plan, Progress& progress)
    : config_(config),
      load_names_(plan.load_names),
      seed_(plan.seed),
      progress_(progress),
      guests_(config, plan.labels, progress) {
    if (!config.vm.duet) return;
    duet_ = plan_duet_cpus(allowed_cpus(), plan.labels.size(), config.vm.shape.cpus);
    if (!duet_.why_not.empty()) {
        progress.note("contest: --duet: " + duet_.why_not +
                      ": the guests take their turns one after another, as without --duet");
        return;
    }
    std::string sets;
    for (const auto& set : duet_.sets) sets += (sets.empty() ? "" : " | ") + cpu_list_text(set);
    progress.note("contest: --duet: each round's " + std::to_string(plan.labels.size()) +
                  " guests at once, on host CPUs " + sets +
                  ", passed from label to label round by round");
}

nlohmann::json GuestRounds::duet_record() const {
    nlohmann::json j = {{"asked", true}, {"taken", duet_.why_not.empty()}};
    if (!duet_.why_not.empty()) {
        j["why_not"] = duet_.why_not;
        return j;
    }
    j["cpu_sets"] = nlohmann::json::array();
    for (const auto& set : duet_.sets) j["cpu_sets"].push_back(cpu_list_text(set));
    j["order"] = "each label has each set once in every " + std::to_string(duet_.sets.size()) +
                 " rounds, in an order drawn from the seed";
    j["measures"] = kDuetMeasures;
    return j;
}

void GuestRounds::describe(ResultFile& file, const LabelRun& label) const {
    nlohmann::json vm = guests_.vm_record();
    if (config_.vm.duet) vm["duet"] = duet_record();
    record_guest_setup(file, vm, KernelGuests::kernel_record(label));
}

void GuestRounds::begin(RunRecorder& recorder) {
    recorder.eta().total *= static_cast<int>(config_.vm.runs_in_each_boot());
}

std::vector<std::string> GuestRounds::names_of(const std::vector<std::size_t>& loads) const {
    std::vector<std::string> names;
    for (const std::size_t k : loads) names.emplace_back(load_names_[k]);
    return names;
}

void GuestRounds::take_turn(LabelRun& label, unsigned index, const std::vector<std::size_t>& loads,
                            RunRecorder& recorder) {
    const GuestRound got = guests_.run_round(label, index, names_of(loads),
                                             turn_seed(seed_, index, label.index), progress_);
    if (got.result) take_guest_facts(label.result, *got.result);
    record_guest_boot(label.result, index, got.up_s, got.total_s);
    say_runs(label, got.runs);
    recorder.record(label, got.runs, got.total_s);
}

namespace {

// Whether every turn of the round takes the same loads (a duet runs each
// load in every guest at once).
bool same_loads(const PlannedRound& round) {
    auto sorted = [](std::vector<std::size_t> v) {
        std::sort(v.begin(), v.end());
        return v;
    };
    const auto first = sorted(round.turns.front().loads);
    return std::all_of(round.turns.begin(), round.turns.end(),
                       [&](const LabelTurn& t) { return sorted(t.loads) == first; });
}

// A duet guest's boot record (config.vm.boots[].duet): its CPUs, the labels
// beside it with theirs, QEMU's threads found pinned, and each run's start:
// its load, when the barrier let the guests go (host clock, s since the
// epoch), its start after that, and the spread of every guest's start.
nlohmann::json duet_boot(const DuetRound& got, std::size_t g, const std::vector<DuetGuest>& each,
                         const std::vector<std::string>& loads) {
    nlohmann::json beside = nlohmann::json::array();
    for (std::size_t o = 0; o < each.size(); ++o)
        if (o != g)
            beside.push_back(
                {{"label", each[o].label->label}, {"cpus", cpu_list_text(each[o].cpus)}});
    nlohmann::json starts = nlohmann::json::array();
    for (const auto& r : got.releases) {
        nlohmann::json s = {
            {"run", r.run},
            // --runs-per-boot: the loads again, in one order, boot after boot.
            {"load", r.run >= 1 && !loads.empty() ? loads[(r.run - 1) % loads.size()] : ""},
            {"go_at_s", r.go_at}};
        if (r.started[g]) {
            s["after_go_s"] = *r.started[g];
            s["stamp"] = r.stamped[g] ? "file" : "seen";
        }
        s["guests_started"] = std::count_if(r.started.begin(), r.started.end(),
                                            [](const auto& x) { return x.has_value(); });
        if (const auto spread = r.spread_s()) s["spread_s"] = *spread;
        starts.push_back(std::move(s));
    }
    return {{"cpus", cpu_list_text(each[g].cpus)},
            {"beside", beside},
            {"qemu_threads_pinned", got.pinned_threads[g]},
            {"starts", starts}};
}

}  // namespace

void GuestRounds::take_round(const PlannedRound& round, RunRecorder& recorder) {
    if (duet_.sets.empty() || round.turns.size() < 2 || !same_loads(round))
        return RoundBackend::take_round(round, recorder);
    // One order for every guest, the round's first turn's: each load runs
    // in every guest at once.
    const std::vector<std::string> loads = names_of(round.turns.front().loads);
    const std::vector<std::size_t> sets =
        duet_sets_of_round(round.index, recorder.labels().size(), seed_);
    std::vector<DuetGuest> each;
    for (const LabelTurn& turn : round.turns) {
        const LabelRun& label = recorder.labels()[turn.label];
        each.push_back(
            {&label, turn_seed(seed_, round.index, label.index), duet_.sets[sets[turn.label]]});
    }
    const auto started = std::chrono::steady_clock::now();
    const DuetRound got = run_duet_round(guests_, round.index, each, loads, progress_);
    // The guests ran at once: what the round took, shared between them, is
    // what the ETA counts (not the sum of their times).
    const double share_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() /
        static_cast<double>(each.size());
    for (std::size_t g = 0; g < each.size(); ++g) {
        LabelRun& label = recorder.labels()[round.turns[g].label];
        const GuestRound& guest = got.guests[g];
        if (guest.result) take_guest_facts(label.result, *guest.result);
        record_guest_boot(label.result, round.index, guest.up_s, guest.total_s,
                          duet_boot(got, g, each, loads));
        say_runs(label, guest.runs);
        recorder.record(label, guest.runs, share_s);
    }
    if (!got.releases.empty())
        if (const auto spread = got.releases.front().spread_s())
            progress_.note("contest: duet round " + std::to_string(round.index) +
                           ": the guests' first runs started " + seconds_text(*spread, 3) +
                           " apart");
}

// Each run's line, as a host run's is said when it finishes, and why a
// failed one failed.
void GuestRounds::say_runs(const LabelRun& label, const std::vector<RunRecord>& runs) {
    for (const auto& rec : runs) {
        progress_.note(
            run_summary_line(rec.load + "  run " + std::to_string(rec.index) + "/" +
                                 std::to_string(config_.runs * config_.vm.runs_in_each_boot()) +
                                 "  [" + label.label + "]",
                             rec));
        if (!rec.ok())
            say(rec.load + " run " + std::to_string(rec.index) + " [" + label.label +
                "]: " + rec.reason);
    }
}

}  // namespace contest
