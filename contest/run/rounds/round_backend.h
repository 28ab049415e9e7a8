#pragma once
// Where a round's runs are taken: on this host (host_rounds.h) or in a
// QEMU guest booted for the label's kernel (guest_rounds.h). The loop
// (run_loop.cpp) chooses one from the plan, then hands it one label's turn
// in a round at a time; the backend runs the turn's loads in the order
// given and hands every finished run to the recorder, which saves it in
// the label's file, with whatever else that file learns (a guest's boot,
// its machine).
//
// A turn's outcome lives in the label's file, not in the backend: a
// backend may keep what makes its turns quicker (prepared loads), but
// nothing a later round needs, so that one taken by another contest (after
// a reboot into the label's kernel) finds all it needs in the file.
#include <cstddef>
#include <optional>
#include <vector>

#include "contest/latency/latency_probes.h"
#include "contest/result/result_file.h"
#include "contest/run/record/label_run.h"
#include "contest/run/plan/planned_round.h"
#include "contest/run/record/run_recorder.h"

namespace contest {

class RoundBackend {
  public:
    virtual ~RoundBackend() = default;

    // --latency: the probes' plan the runs measure with, made now (the
    // probes calibrate their work on the idle machine) and recorded in the
    // config; none where the runs' own contest makes its own (a guest).
    virtual std::optional<latency::LatencyPlan> plan_probes() = 0;

    // What a new file records of where its label's runs are taken.
    virtual void describe(ResultFile& file, const LabelRun& label) const = 0;

    // Before the first turn, every label's file open (recorder.labels()):
    // what each turn needs ready, made so (and recorded in the files)
    // before the clock of --budget starts.
    virtual void begin(RunRecorder& recorder) = 0;

    // Takes `loads` (indices into the plan's) in this order for `label`,
    // runs number `index` (its round), each recorded by `recorder`.
    virtual void take_turn(LabelRun& label, unsigned index, const std::vector<std::size_t>& loads,
                           RunRecorder& recorder) = 0;

    // Takes a whole round: by default its turns one after the other, in
    // the plan's order. A backend that takes a round's turns at once (a
    // duet's guests, guest_rounds.h) does it its own way.
    virtual void take_round(const PlannedRound& round, RunRecorder& recorder) {
        for (const LabelTurn& turn : round.turns)
            take_turn(recorder.labels()[turn.label], round.index, turn.loads, recorder);
    }
};

}  // namespace contest
