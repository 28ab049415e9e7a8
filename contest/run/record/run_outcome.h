#pragma once
// What `contest run` took: each label with its file, and how many runs
// failed. The recorder fills it run by run (run_recorder.h); the run's
// driver (run_driver.h) hands it to the command, which prints it and sets the exit status.
#include <string>
#include <vector>

#include "contest/run/record/label_run.h"

namespace contest {

struct RunOutcome {
    // One per --vary combination, --kernel or --boot kernel; the -k label
    // alone otherwise; each with its file and where that was saved.
    std::vector<LabelRun> labels;
    int failed_runs = 0;
    // Set when saving a result file failed: the suite stopped there, the
    // runs are all in the labels' files, the file on disk holds the last
    // good save (or does not exist when no save succeeded).
    std::string save_failure;
};

}  // namespace contest
