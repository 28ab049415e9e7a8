#pragma once
// Where a finished run goes, wherever it was taken: into its label's file,
// saved at once, and counted for the ETA and for contest's exit status.
#include <string>
#include <vector>

#include "contest/result/result_file.h"
#include "contest/run/record/eta.h"
#include "contest/run/record/label_run.h"

namespace contest {

struct RunOutcome;

class RunRecorder {
  public:
    // `out` holds the labels, their files open; `to_take` runs are planned.
    RunRecorder(RunOutcome& out, std::size_t to_take);

    // The runs one turn took (in the order taken), which took spent_s,
    // added to the label's file and saved (throws SaveFailed).
    void record(LabelRun& label, const std::vector<RunRecord>& runs, double spent_s);

    std::vector<LabelRun>& labels();
    Eta& eta() { return eta_; }

  private:
    RunOutcome& out_;
    Eta eta_;
};

// A finished run's line: "HEAD  12.3 s  CPU 97%  load 4.1 MB/s, 12% CPU"
// and its status when it failed.
std::string run_summary_line(const std::string& head, const RunRecord& rec);

}  // namespace contest
