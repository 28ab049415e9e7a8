#pragma once
// What a track measures with, behind one interface (as hyperfine's Executor
// is): a point's kernel, two kernels compared, a bisection. The real one
// (drive/contest_bench.h) runs contest's own commands, each a process of
// this binary (`contest run --journal` of a journal it made, `contest bisect
// ...`), which build, boot and measure as any; the tests give one that derives figures from
// the commit, so that a track of a real git tree runs in seconds.
#include <filesystem>
#include <string>
#include <vector>

#include "contest/bisect/bisect_state.h"
#include "contest/result/result_file.h"
#include "contest/sys/errors.h"

namespace contest::track {

// A point that did not build or boot, or whose run failed: skipped, and
// said with this reason.
struct PointFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The measurement goes on across reboots of this machine (a --boot run or
// bisection, just started or still under way): the track stops there, its
// state saying where it stands, and its next start (the unit's timer, at
// boot) asks the bench again.
struct AcrossReboots : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The label of the point's own file in its run's folder.
inline constexpr const char* kPointLabel = "point";
// The labels of a confirmation's two kernels.
inline constexpr const char* kBeforeLabel = "before";
inline constexpr const char* kAfterLabel = "after";

class TrackBench {
  public:
    virtual ~TrackBench() = default;
    // Whether `folder` holds a measurement that goes on by itself across
    // reboots (started, under way or over): the same call then asks it
    // again (its figures, or AcrossReboots), never begins it afresh.
    virtual bool goes_on_by_itself(const std::filesystem::path& /*folder*/) const { return false; }
    // The kernel of `commit` measured alone into `folder` (a fresh one):
    // the path of the point's result file (label kPointLabel). PointFailed
    // when it does not build or its run fails; Interrupted when cut;
    // AcrossReboots while it goes on across reboots.
    virtual std::filesystem::path measure_point(const std::string& commit,
                                                const std::filesystem::path& folder) = 0;
    // `before` and `after` in interleaved rounds of one run into `folder`
    // (a fresh one): their files, labels kBeforeLabel and kAfterLabel, in
    // that order. PointFailed when either does not build or the run fails.
    virtual std::vector<ResultFile> compare(const std::string& before, const std::string& after,
                                            const std::filesystem::path& folder) = 0;
    // `contest bisect` between the commits `good` and `bad` in `folder`,
    // taken on from its state there when a cut one left it; its state.
    // PointFailed when it was stopped past the bench's time bound.
    virtual bisect::BisectState bisect(const std::string& good, const std::string& bad,
                                       const std::filesystem::path& folder) = 0;
};

}  // namespace contest::track
