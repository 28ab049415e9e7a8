#pragma once
// What each of a track's runs is, as its question gives it: the tree its
// kernels are built from, the measure, the run words, the rounds of a
// point and of a confirmation, and --boot. Declared once: the track's
// options (track_options.h) and its real bench's settings
// (drive/contest_bench.h) are each this and their own.
#include <filesystem>
#include <string>
#include <vector>

#include "contest/bisect/bisect_measure.h"

namespace contest::track {

struct TrackRuns {
    std::filesystem::path tree;  // the user's work tree, its top folder, absolute
    bisect::BisectMeasure measure;
    // Each run's words (the workload, the loads, ...) as the user gave them:
    // the state keeps them as part of the question, and the track's
    // `contest bisect` is given them after its --.
    std::vector<std::string> run_words;
    unsigned point_rounds = 3, confirm_rounds = 5;
    // --boot: its runs across reboots (the bench's; the state keeps it as
    // part of the question).
    bool boot = false;
};

}  // namespace contest::track
